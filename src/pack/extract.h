/* extract: keep only the .text bytes of a linked kernel image (libelf).
 *
 * The device loader copies .text and jumps to its offset 0, so the image must
 * have a .text, its entry point must be the start of .text, and no relocations
 * may be left for a loader that applies none. */
#ifndef KWARM_EXTRACT_H
#define KWARM_EXTRACT_H

/* Write the .text bytes of the ELF image at image_path to out_path (a new file).
 * 0, or -1 with an error that names label (the unit) in why (error_to: on
 * stderr when why is NULL). */
struct buf;
int extract_text(const char *image_path, const char *out_path, const char *label,
		 struct buf *why);

#endif
