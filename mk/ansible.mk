# SPDX-License-Identifier: GPL-2.0-or-later
# Ansible (inventory/, playbooks/): lint, and the whole cycle on the lab.
#
#   make ansible-lint    yamllint + ansible-lint + a syntax check of every
#                        playbook against the example inventory
#   make ansible-check   ansible-lint, then on the running tier-1 lab over
#                        SSH (lab/ssh): provision, provision again (must
#                        change nothing), check, teardown; lab/ssh down
#                        at the end.  Needs `lab/lab up` first, and
#                        `make deb` (provision installs build/deb's
#                        package; ANSIBLE_ARGS='-e dentrace_install=source'
#                        copies and builds the checkout instead, which
#                        must not change meanwhile: a changed file is a
#                        change).
#   make ansible-kcheck  ansible-lint, then the cycle on the kernel lab's
#                        guests (inventory/lab-kernel, lab/ansible-kcheck):
#                        lab/klab up --bare, state, provision, check (short),
#                        provision again (changed=0), teardown, state again
#                        (must equal the first), lab/klab down.  Needs root
#                        and `make deb`; DT_KLAB_NS as lab/klab; logs and
#                        recap in reports/<run-id>/ansible/.
#   make ansible-kcheck-short
#                        the same cycle, short (lab/ansible-kcheck --short:
#                        one test on one mount set, only that set
#                        mounted), without the lint (what .ci/run runs
#                        after ansible-check has linted).
#   KCHECK_SERVER=nfs-ganesha  either cycle with nfs-ganesha as the server
#                        (the role's own init script in the guests).
#
# This file is included before the main Makefile's first rule: its first
# rule must be `all`, or it would become the default goal.
all:

ANSIBLE_PLAYBOOKS := $(wildcard playbooks/*.yml)
# extra ansible-playbook arguments, e.g. ANSIBLE_ARGS='-e dentrace_src=/path/to/a/quiet/checkout'
ANSIBLE_ARGS      ?=
ANSIBLE_LAB       := lab/ssh exec ansible-playbook -i inventory/lab $(ANSIBLE_ARGS)

KCHECK_SERVER     ?= knfsd

.PHONY: ansible-lint ansible-check ansible-kcheck ansible-kcheck-short
ansible-lint:
	yamllint --strict .
	ansible-lint --strict -q
	@for p in $(ANSIBLE_PLAYBOOKS); do \
		ansible-playbook -i inventory/example --syntax-check $$p >/dev/null || exit 1; \
	done; echo "syntax ok: $(ANSIBLE_PLAYBOOKS)"

ansible-check: ansible-lint
	lab/lab status >/dev/null || { echo "ansible-check: the lab is not up (lab/lab up)" >&2; exit 2; }
	lab/ssh up
	@set -e; log=$$(mktemp); trap 'rm -f "$$log"; lab/ssh down' EXIT; \
	$(ANSIBLE_LAB) playbooks/provision.yml; \
	$(ANSIBLE_LAB) playbooks/provision.yml >"$$log" || { cat "$$log"; exit 1; }; cat "$$log"; \
	if awk '/^PLAY RECAP/ { r = 1; next } r && /changed=[1-9]/ { bad = 1 } END { exit !bad }' "$$log"; then \
		echo "ansible-check: the second provision run changed something" >&2; exit 1; \
	fi; \
	rc=0; $(ANSIBLE_LAB) playbooks/check.yml || rc=$$?; \
	$(ANSIBLE_LAB) playbooks/teardown.yml; \
	exit $$rc

ansible-kcheck: ansible-lint
	lab/ansible-kcheck --server $(KCHECK_SERVER) $(if $(ANSIBLE_ARGS),-- $(ANSIBLE_ARGS))

ansible-kcheck-short:
	lab/ansible-kcheck --short --server $(KCHECK_SERVER) $(if $(ANSIBLE_ARGS),-- $(ANSIBLE_ARGS))
