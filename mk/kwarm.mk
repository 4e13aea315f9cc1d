# kwarm.mk: a kernel warm-up inside your own Makefile.
#
#   KWARM_SPEC  := kernels/spec.yaml      # required
#   KWARM_CACHE := $(HOME)/.cache/kwarm   # optional (else $KWARM_CACHE, the spec's, ~/.cache/kwarm)
#   KWARM_OUT   := build/callables        # optional (else the spec's 'out')
#   include /usr/share/kwarm/kwarm.mk
#
# gives the targets 'warmup' (every class) and 'warmup-CLASS' (one class).
# Run them with your usual 'make -jN': the warm-up runs as a sub-make on a '+'
# line without -j, so your -jN stays the one bound on every job. Including
# this file changes neither your default goal nor any of your variables: all
# of its own start with KWARM_ or kwarm_, and the user-facing ones are set
# with ?= only.
#
# Other settings: KWARM (the program; default: the kwarm installed next to
# this file, else 'kwarm' on PATH), KWARM_MK (the generated Makefile; default
# .kwarm/warmup.mk), KWARM_GEN_FLAGS (more 'kwarm gen' options, e.g.
# --launcher distcc or --format github). V=1 shows full command lines.

kwarm_saved_goal := $(.DEFAULT_GOAL)
kwarm_here := $(dir $(lastword $(MAKEFILE_LIST)))

KWARM ?= $(or $(wildcard $(kwarm_here)../../bin/kwarm),kwarm)
KWARM_MK ?= .kwarm/warmup.mk
KWARM_CACHE ?=
KWARM_OUT ?=
KWARM_GEN_FLAGS ?=

kwarm_gen_cmd = $(KWARM) gen '$(KWARM_SPEC)' -o '$(KWARM_MK)' \
	$(if $(KWARM_CACHE),--cache '$(KWARM_CACHE)') $(if $(KWARM_OUT),--out '$(KWARM_OUT)') \
	$(KWARM_GEN_FLAGS)

# The generated Makefile remakes itself when the spec or an input changes; it
# is made here when it is missing or older than the spec, and again whenever
# the gen command line changes (recorded next to it).
ifneq ($(strip $(file <$(KWARM_MK).cmd)),$(strip $(kwarm_gen_cmd)))
$(KWARM_MK): kwarm-force
endif

$(KWARM_MK): $(KWARM_SPEC)
	$(if $(KWARM_SPEC),,$(error kwarm.mk: set KWARM_SPEC to your warm-up spec))
	$(kwarm_gen_cmd)
	@printf '%s\n' '$(subst ','\'',$(strip $(kwarm_gen_cmd)))' > '$(KWARM_MK).cmd'

.PHONY: warmup kwarm-force
kwarm-force:

warmup: $(KWARM_MK)
	+$(MAKE) -f '$(KWARM_MK)' warmup

warmup-%: $(KWARM_MK)
	+$(MAKE) -f '$(KWARM_MK)' $@

.DEFAULT_GOAL := $(kwarm_saved_goal)
