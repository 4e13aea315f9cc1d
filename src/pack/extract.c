/* extract: the .text bytes of a linked kernel image, read with libelf. */
#include "pack/extract.h"
#include "util.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

/* Does the relocation section scn patch a byte of .text? Static ones name
 * their target in sh_info; dynamic ones (.rela.dyn) are told by address. An
 * entry that cannot be read cannot be shown harmless, so it counts. */
static int relocates_text(Elf_Scn *scn, const GElf_Shdr *sh, size_t text_index,
			  const GElf_Shdr *text)
{
	Elf_Data *data = NULL;

	if (sh->sh_info == text_index)
		return 1;
	if (!(sh->sh_flags & SHF_ALLOC) || !sh->sh_entsize)
		return 0;
	while ((data = elf_getdata(scn, data))) {
		size_t n = data->d_size / sh->sh_entsize;

		for (size_t i = 0; i < n; i++) {
			GElf_Rela rela;
			GElf_Rel rel;
			GElf_Addr at;

			if (sh->sh_type == SHT_RELA ? !gelf_getrela(data, (int)i, &rela)
						    : !gelf_getrel(data, (int)i, &rel))
				return 1;
			at = sh->sh_type == SHT_RELA ? rela.r_offset : rel.r_offset;
			if (at >= text->sh_addr && at - text->sh_addr < text->sh_size)
				return 1;
		}
	}
	return 0;
}

/* Find .text and check the image is what the device loader expects. */
static int find_text(Elf *elf, const char *label, const char *image_path, Elf_Scn **text_out,
		     struct buf *why)
{
	Elf_Scn *scn = NULL, *text = NULL;
	GElf_Shdr sh, tsh;
	GElf_Ehdr eh;
	size_t shstrndx;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return error_to(why, "%s: the linked image '%s' is not an ELF file", label,
				image_path);
	if (elf_getshdrstrndx(elf, &shstrndx))
		return error_to(why, "%s: cannot read the section names of '%s': %s", label,
				image_path, elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return error_to(why, "%s: cannot read a section header of '%s': %s",
					label, image_path, elf_errmsg(-1));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text")) {
			text = scn;
			tsh = sh;
			break;
		}
	}
	if (!text)
		return error_to(why, "%s: the linked image has no .text section", label);
	if (tsh.sh_type == SHT_NOBITS || !tsh.sh_size)
		return error_to(why, "%s: the .text section of the linked image is empty", label);
	/* The loader applies no relocations: whatever is left would run unpatched. */
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return error_to(why, "%s: cannot read a section header of '%s': %s",
					label, image_path, elf_errmsg(-1));
		if ((sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA) &&
		    relocates_text(scn, &sh, elf_ndxscn(text), &tsh)) {
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);

			return error_to(why, "%s: relocations are left against .text (section "
					"'%s'); the device loader does not apply them: link with "
					"the entry symbol so that none remain", label,
					name ? name : "?");
		}
	}
	/* The loader jumps to offset 0 of .text. */
	if (eh.e_entry != tsh.sh_addr)
		return error_to(why, "%s: the entry point 0x%" PRIx64 " is not the start of "
				".text (0x%" PRIx64 ")", label, (uint64_t)eh.e_entry,
				(uint64_t)tsh.sh_addr);
	*text_out = text;
	return 0;
}

int extract_text(const char *image_path, const char *out_path, const char *label,
		 struct buf *why)
{
	Elf *elf = NULL;
	Elf_Scn *text = NULL;
	Elf_Data *data;
	int in, out, ret = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return error_to(why, "%s: libelf is out of date: %s", label, elf_errmsg(-1));
	in = open(image_path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return error_errno_to(why, "%s: cannot open the linked image '%s'", label,
				      image_path);
	elf = elf_begin(in, ELF_C_READ, NULL);
	if (!elf) {
		error_to(why, "%s: cannot read the linked image '%s': %s", label, image_path,
			 elf_errmsg(-1));
		goto out;
	}
	if (find_text(elf, label, image_path, &text, why))
		goto out;
	/* Raw bytes: the code as the file holds it, never byte-swapped. */
	data = elf_rawdata(text, NULL);
	if (!data || !data->d_buf) {
		error_to(why, "%s: cannot read .text of '%s': %s", label, image_path,
			 elf_errmsg(-1));
		goto out;
	}
	out = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		error_errno_to(why, "%s: cannot create '%s'", label, out_path);
		goto out;
	}
	ret = write_all(out, data->d_buf, data->d_size);
	if (close(out) || ret) {
		ret = error_errno_to(why, "%s: cannot write '%s'", label, out_path);
		unlink(out_path);
	}
out:
	elf_end(elf);
	close(in);
	return ret;
}
