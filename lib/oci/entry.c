// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * oci/entry: rdtalloc_oci_hook, the public call of the OCI hook (oci.h). It
 * reads the stage and the state JSON, opens the contexts the stage needs -
 * a look at the default class, then the write - and closes them; the
 * checks, the placement and the record are the module's (oci.c), which
 * opens no context itself.
 */
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "errors.h"
#include "oci/oci.h"

/*
 * The default class from an annotation: nothing to place, but goresctrl
 * refuses it too where the root class (the default group) denies that kind
 * of annotation. Looked at read-only: no state is made for it.
 */
static int root_class_allowed(const struct rdtalloc_opts *opts, const struct rdt_oci_in *in)
{
	RDTALLOC_OPTS(rdtalloc_opts, o);
	rdtalloc_t *r = NULL;
	int ret;

	/* the caller's options (as far as this library knows them), to look only */
	if (opts && opts->sz >= sizeof(size_t))
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	o.flags |= RDTALLOC_F_READ_ONLY | RDTALLOC_F_NO_CREATE;
	/* a size no options have: rdtalloc_open says so */
	ret = rdtalloc_open(&r, opts && opts->sz < sizeof(size_t) ? opts : &o);
	if (!ret) {
		ret = rdt_oci_root_allowed(r, in);
		if (ret)
			rdt_fail(NULL, ret, "%s", rdtalloc_errmsg(r));
	}
	rdtalloc_close(r);
	return ret;
}

RDTALLOC_API int rdtalloc_oci_hook(const struct rdtalloc_opts *opts, const char *stage,
				   const char *state, size_t len, int *what)
{
	struct rdt_oci_in in;
	enum rdt_oci_stage sg = RDT_OCI_NONE;
	json_object *root = NULL;
	rdtalloc_t *r = NULL;
	int ret, done = RDTALLOC_OCI_IGNORED;

	rdt_clear_err(NULL);
	ret = rdt_oci_read(stage, state, len, &sg, &root, &in);
	if (!ret && sg == RDT_OCI_PLACE && in.root_class)
		ret = root_class_allowed(opts, &in);
	/* not ours: quickly, and without opening (or making) any state */
	if (ret || sg == RDT_OCI_NONE || !in.group)
		goto out;
	ret = rdtalloc_open(&r, opts);
	if (ret)
		goto out;
	ret = rdt_oci_act(r, sg, &in, &done);
	if (ret) {
		rdt_fail(NULL, ret, "%s", rdtalloc_errmsg(r));
		done = RDTALLOC_OCI_IGNORED;
	}
	rdtalloc_close(r);
out:
	json_object_put(root);
	if (what)
		*what = done;
	return ret;
}
