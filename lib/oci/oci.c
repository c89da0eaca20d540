// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * oci: the OCI runtime hook - see oci.h. Each stage is one write call: the
 * group made (when the annotations ask for it), the container bound, the
 * record of it written, all in one transaction, so that a failure leaves
 * the state as it was and the runtime refuses to start the container.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "backend.h"
#include "context.h"
#include "errors.h"
#include "goresctrl/policy.h"
#include "json.h"
#include "oci/oci.h"
#include "tasks.h"

#define SCHEMA_MAX 4096		/* bytes of the rdtalloc.schema annotation */
#define JSON_DEPTH 16		/* a state JSON nests two levels; more is not one */

static int stage_of(const char *stage, enum rdt_oci_stage *out)
{
	static const char *const place[] = { "createRuntime", "prestart" };
	static const char *const none[] = { "createContainer", "startContainer", "poststart" };
	size_t i;

	for (i = 0; stage && i < 2; i++)
		if (!strcmp(stage, place[i]))
			return *out = RDT_OCI_PLACE, 0;
	if (stage && !strcmp(stage, "poststop"))
		return *out = RDT_OCI_RELEASE, 0;
	for (i = 0; stage && i < 3; i++)
		if (!strcmp(stage, none[i]))
			return *out = RDT_OCI_NONE, 0;
	return rdt_fail(NULL, -EINVAL, "OCI hook stage '%.40s': not one of createRuntime, "
			"prestart, poststop (createContainer, startContainer and poststart do "
			"nothing)", stage ? stage : "(null)");
}

/* runc's rule for container ids: [A-Za-z0-9_+.-], as many as it allows here. */
static bool id_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > RDT_OCI_ID_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_+.-", s[i]))
			return false;
	return true;
}

static int need_string(json_object *o, const char *key, bool required, const char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required)
			return rdt_fail(NULL, -EINVAL, "container state: no \"%s\"", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return rdt_fail(NULL, -EINVAL, "container state: \"%s\" is not a string", key);
	*out = json_object_get_string(v);
	return 0;
}

/* Annotation key's value as a string, NULL when absent; -EINVAL when not a string. */
static int ann_string(json_object *ann, const char *key, const char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(ann, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return rdt_fail(NULL, -EINVAL, "annotation %.200s is not a string", key);
	*out = json_object_get_string(v);
	return 0;
}

/*
 * The RDT class of the CRI's annotations (goresctrl's keys and order), when
 * rdtalloc.group is not given: the container's own, the pod's for this
 * container, the pod's for all of them. *key: which one gave it.
 */
static int cri_class(json_object *ann, const char **cls, const char **key, char *buf,
		     size_t len)
{
	static const char *const names[] = { "io.kubernetes.cri.container-name",
					     "io.kubernetes.container.name" };
	const char *name = NULL;
	size_t i;
	int ret;

	ret = ann_string(ann, RDTALLOC_OCI_CRI_CLASS_KEY, cls);
	if (ret || *cls)
		return *key = RDTALLOC_OCI_CRI_CLASS_KEY, ret;
	for (i = 0; !name && i < 2; i++) {
		ret = ann_string(ann, names[i], &name);
		if (ret)
			return ret;
	}
	if (name && snprintf(buf, len, "%s%s", RDTALLOC_OCI_POD_CONTAINER_PREFIX, name) <
	    (int)len) {
		ret = ann_string(ann, buf, cls);
		if (ret || *cls)
			return *key = buf, ret;
	}
	ret = ann_string(ann, RDTALLOC_OCI_POD_KEY, cls);
	*key = RDTALLOC_OCI_POD_KEY;
	return ret;
}

static int read_annotations(json_object *root, struct rdt_oci_in *in)
{
	json_object *ann, *v;
	const char *key = RDTALLOC_OCI_GROUP_KEY;
	int ret;

	if (!json_object_object_get_ex(root, "annotations", &ann) ||
	    json_object_is_type(ann, json_type_null))
		return 0;
	if (!json_object_is_type(ann, json_type_object))
		return rdt_fail(NULL, -EINVAL, "container state: \"annotations\" is not an object");
	ret = ann_string(ann, RDTALLOC_OCI_GROUP_KEY, &in->group);
	if (!ret && !in->group) {
		ret = cri_class(ann, &in->group, &key, in->class_key, sizeof(in->class_key));
		/* the default class: the container stays in the default group (its policy aside) */
		if (!ret && in->group && (!*in->group || !strcmp(in->group, "system/default"))) {
			in->root_class = in->group;
			in->group = NULL;
		}
		in->from_class = in->group != NULL;
	}
	if (ret)
		return ret;
	in->key = key;
	if (in->group && (!rdt_name_valid(in->group) || !strcmp(in->group, "default")))
		return rdt_fail(NULL, -EINVAL, "annotation %.200s=\"%.64s\": not a group name "
				"(1 to 63 of A-Z a-z 0-9 _ . -, not starting with '.', "
				"not default)", key, in->group);
	if (json_object_object_get_ex(ann, RDTALLOC_OCI_SCHEMA_KEY, &v)) {
		if (!json_object_is_type(v, json_type_string))
			return rdt_fail(NULL, -EINVAL, "annotation %s is not a string",
					RDTALLOC_OCI_SCHEMA_KEY);
		in->schema = json_object_get_string(v);
		if (!*in->schema || strlen(in->schema) > SCHEMA_MAX)
			return rdt_fail(NULL, -EINVAL, "annotation %s: %zu bytes, must be 1..%d",
					RDTALLOC_OCI_SCHEMA_KEY, strlen(in->schema), SCHEMA_MAX);
		/* a class's group is the runtime configuration's: not made here */
		if (!in->group || in->from_class)
			return rdt_fail(NULL, -EINVAL, "annotation %s without %s: which group?",
					RDTALLOC_OCI_SCHEMA_KEY, RDTALLOC_OCI_GROUP_KEY);
	}
	return 0;
}

/* The state JSON, whole and checked, or an error naming what is wrong; *root to free. */
static int parse_state(const char *text, size_t len, bool need_pid, json_object **root,
		       struct rdt_oci_in *in)
{
	const char *id, *ver, *status;
	json_object *o = NULL, *v;
	char why[128];
	size_t at;
	int ret;

	memset(in, 0, sizeof(*in));
	*root = NULL;
	if (!text || !len)
		return rdt_fail(NULL, -EINVAL, "container state: empty (the runtime writes it "
				"to standard input)");
	if (len > RDTALLOC_OCI_STATE_MAX)
		return rdt_fail(NULL, -E2BIG, "container state: %zu bytes, at most %u", len,
				RDTALLOC_OCI_STATE_MAX);
	ret = rdt_json_parse(text, len, JSON_DEPTH, &o, why, sizeof(why), &at);
	if (ret == -ENOMEM)
		return rdt_fail(NULL, ret, "out of memory");
	if (ret)
		return rdt_fail(NULL, ret, "container state: not one JSON document (%s, at byte "
				"%zu)", why, at);
	*root = o;
	if (!json_object_is_type(o, json_type_object))
		return rdt_fail(NULL, -EINVAL, "container state: not a JSON object");
	ret = need_string(o, "ociVersion", true, &ver);
	if (!ret)
		ret = need_string(o, "id", true, &id);
	if (!ret)
		ret = need_string(o, "status", false, &status);
	if (ret)
		return ret;
	if (!id_valid(id))
		return rdt_fail(NULL, -EINVAL, "container state: id \"%.64s\": 1 to %d of "
				"A-Z a-z 0-9 _ + . -", id, RDT_OCI_ID_MAX);
	snprintf(in->id, sizeof(in->id), "%s", id);
	if (json_object_object_get_ex(o, "pid", &v) && !json_object_is_type(v, json_type_null)) {
		int64_t p = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || p <= 0 || p > INT32_MAX)
			return rdt_fail(NULL, -EINVAL, "container %s: pid is not a process id",
					in->id);
		in->pid = (pid_t)p;
	}
	if (need_pid && !in->pid)
		return rdt_fail(NULL, -EINVAL, "container %s: no pid (status %s): not created yet?",
				in->id, status ? status : "unknown");
	return read_annotations(o, in);
}

/* ---- The record of placed containers (the state's "containers") ------------------ */

static struct rdt_oci_ctr *find_ctr(struct rdt_state *st, const char *id)
{
	unsigned int i;

	for (i = 0; i < rdt_oci(st)->n; i++)
		if (!strcmp(rdt_oci(st)->v[i].id, id))
			return &rdt_oci(st)->v[i];
	return NULL;
}

static void drop_ctr(struct rdt_state *st, struct rdt_oci_ctr *c)
{
	unsigned int i = (unsigned int)(c - rdt_oci(st)->v);

	free(c->cgroup);
	memmove(c, c + 1, (rdt_oci(st)->n - i - 1) * sizeof(*c));
	rdt_oci(st)->n--;
}

static int add_ctr(struct rdt_state *st, const struct rdt_oci_ctr *c)
{
	struct rdt_oci_ctr *v = realloc(rdt_oci(st)->v, (rdt_oci(st)->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	rdt_oci(st)->v = v;
	v[rdt_oci(st)->n++] = *c;
	return 0;
}


void rdt_oci_state_gc(struct rdt_state *st)
{
	unsigned int i = 0;

	while (i < rdt_oci(st)->n) {
		if (rdt_group_by_seq(st, rdt_oci(st)->v[i].group_seq) < 0)
			drop_ctr(st, &rdt_oci(st)->v[i]);
		else
			i++;
	}
}

/* ---- The state's part (hw/section.h) ------------------------------------------ */

static void oci_free(void *part)
{
	struct rdt_oci_state *os = part;
	unsigned int i;

	for (i = 0; i < os->n; i++)
		free(os->v[i].cgroup);
	free(os->v);
	os->v = NULL;
	os->n = 0;
}

static int oci_copy(void *to, const void *from)
{
	const struct rdt_oci_state *src = from;
	struct rdt_oci_state *dst = to;
	unsigned int i;

	dst->v = NULL;
	dst->n = 0;
	if (!src->n)
		return 0;
	dst->v = calloc(src->n, sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	for (i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].cgroup = NULL;
		dst->n = i + 1;
		if (src->v[i].cgroup && !(dst->v[i].cgroup = strdup(src->v[i].cgroup)))
			return -ENOMEM;
	}
	return 0;
}

/* The "containers" member of the state file; NULL when there is none. */
static json_object *oci_save(const struct rdt_state *st, const void *part)
{
	const struct rdt_oci_state *os = part;
	json_object *arr;
	unsigned int i;

	if (!os->n)
		return NULL;
	arr = json_object_new_array();
	for (i = 0; i < os->n; i++) {
		const struct rdt_oci_ctr *c = &os->v[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_string(c->id));
		json_object_object_add(o, "group", json_object_new_int64((int64_t)c->group_seq));
		json_object_object_add(o, "created", json_object_new_boolean(c->created));
		if (c->cgroup) {
			json_object_object_add(o, "cgroup", json_object_new_string(c->cgroup));
			json_object_object_add(o, "bound", json_object_new_boolean(c->bound));
			if (c->cgroup_id)
				json_object_object_add(o, "cgroup_id",
						       json_object_new_int64((int64_t)c->cgroup_id));
		}
		if (c->pid) {
			json_object_object_add(o, "pid", json_object_new_int64(c->pid));
			json_object_object_add(o, "start", json_object_new_int64((int64_t)c->start));
		}
		json_object_array_add(arr, o);
	}
	return arr;
}

static int read_ctr(struct rdt_state *st, json_object *o, size_t i, const char *path,
		    char *err, size_t len)
{
	json_object *id, *grp, *cr, *cg = NULL, *bd = NULL, *pid = NULL, *start = NULL, *cid = NULL;
	struct rdt_oci_ctr c = { 0 };

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "id", &id) || !json_object_is_type(id, json_type_string) ||
	    !id_valid(json_object_get_string(id)) ||
	    !json_object_object_get_ex(o, "group", &grp) || !json_object_is_type(grp, json_type_int) ||
	    json_object_get_int64(grp) <= 0 || json_object_get_int64(grp) == INT64_MAX ||
	    !json_object_object_get_ex(o, "created", &cr) ||
	    !json_object_is_type(cr, json_type_boolean) ||
	    (json_object_object_get_ex(o, "cgroup", &cg) &&
	     (!json_object_is_type(cg, json_type_string) || !*json_object_get_string(cg) ||
	      strlen(json_object_get_string(cg)) >= RDT_CGROUP_PATH_MAX)) ||
	    (json_object_object_get_ex(o, "bound", &bd) &&
	     !json_object_is_type(bd, json_type_boolean)) ||
	    (json_object_object_get_ex(o, "cgroup_id", &cid) &&
	     (!json_object_is_type(cid, json_type_int) || json_object_get_int64(cid) <= 0)) ||
	    (json_object_object_get_ex(o, "pid", &pid) &&
	     (!json_object_is_type(pid, json_type_int) || json_object_get_int64(pid) <= 0 ||
	      json_object_get_int64(pid) > INT32_MAX ||
	      !json_object_object_get_ex(o, "start", &start) ||
	      !json_object_is_type(start, json_type_int) ||
	      json_object_get_int64(start) < 0))) {
		snprintf(err, len, "state file %s: containers[%zu] is malformed", path, i);
		return -EINVAL;
	}
	snprintf(c.id, sizeof(c.id), "%s", json_object_get_string(id));
	if (find_ctr(st, c.id)) {
		snprintf(err, len, "state file %s: container %s recorded twice", path, c.id);
		return -EINVAL;
	}
	c.group_seq = (uint64_t)json_object_get_int64(grp);
	c.created = json_object_get_boolean(cr);
	/* a record of 0.x before "bound" made every binding it names */
	c.bound = cg && (!bd || json_object_get_boolean(bd));
	if (cid)
		c.cgroup_id = (uint64_t)json_object_get_int64(cid);
	if (pid) {
		c.pid = (pid_t)json_object_get_int64(pid);
		c.start = (uint64_t)json_object_get_int64(start);
	}
	if (cg && !(c.cgroup = strdup(json_object_get_string(cg))))
		return -ENOMEM;
	if (add_ctr(st, &c)) {
		free(c.cgroup);
		return -ENOMEM;
	}
	return 0;
}

/* Read it back (o NULL: none), every value checked; groups are read already. */
static int oci_load(struct rdt_state *st, void *part, json_object *o, const char *path,
		    char *err, size_t len)
{
	size_t i, n;
	int ret = 0;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_array) ||
	    (n = json_object_array_length(o)) > RDT_OCI_CONTAINERS_MAX) {
		snprintf(err, len, "state file %s: \"containers\" is not a list of at most %u",
			 path, RDT_OCI_CONTAINERS_MAX);
		return -EINVAL;
	}
	/* each record goes in through add_ctr(st), into rdt_oci(st): this part */
	for (i = 0; !ret && i < n; i++)
		ret = read_ctr(st, json_object_array_get_idx(o, i), i, path, err, len);
	if (ret)
		oci_free(part);
	return ret;
}

/* The state file's "containers": the containers the hook placed, for their poststop. */
const struct rdt_section rdt_oci_section = {
	.name = "containers",
	.size = sizeof(struct rdt_oci_state),
	.copy = oci_copy,
	.free = oci_free,
	.save = oci_save,
	.load = oci_load,
};

/* ---- Placing ------------------------------------------------------------------ */

/* The cgroup2 path of pid, as /proc/PID/cgroup writes it ("0::/..."); "" when none. */
static int cgroup_of(pid_t pid, char *buf, size_t len)
{
	char path[64], line[RDT_CGROUP_PATH_MAX + 8];
	FILE *f;

	buf[0] = '\0';
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 3) >= len)
			break;	/* longer than any cgroup we bind: as none */
		memcpy(buf, line + 3, strlen(line + 3) + 1);
		break;
	}
	fclose(f);
	return 0;
}

/*
 * Does the container have a cgroup of its own? Its init's cgroup, when that
 * is neither the root nor the one the runtime (which runs this hook) is in.
 */
static int own_cgroup(rdtalloc_t *r, const struct rdt_oci_in *in, char *rel, size_t len)
{
	char mine[RDT_CGROUP_PATH_MAX];
	int ret = cgroup_of(in->pid, rel, len);

	if (ret == -ENOENT || ret == -ESRCH)
		return rdt_fail(r, -ESRCH, "container %s: its process %d is gone", in->id,
				(int)in->pid);
	if (ret)
		return rdt_fail(r, ret, "container %s: cannot read /proc/%d/cgroup: %s", in->id,
				(int)in->pid, strerror(-ret));
	if (cgroup_of(0, mine, sizeof(mine)))
		mine[0] = '\0';
	if (!rel[0] || !strcmp(rel, "/") || !strcmp(rel, mine) || !rdt_core_cgroup_root(r))
		rel[0] = '\0';
	rdt_clear_err(r);	/* no cgroup2 mount is no error: the process is bound */
	return 0;
}

static int make_group(rdtalloc_t *r, const struct rdt_oci_in *in, int *g)
{
	bool changed;
	int ret;

	ret = rdt_group_add(rdt_core_state(r), in->group, g);
	if (!ret && (ret = rdt_group_fit_exclusive(rdt_core_state(r), *g))) {
		rdt_group_del(rdt_core_state(r), *g);
		*g = -1;
	}
	if (ret)
		return rdt_fail(r, ret, "container %s: group %s: %s", in->id, in->group,
				rdt_core_state(r)->err);
	ret = rdt_core_apply_schema(r, rdt_core_state(r), *g, in->schema, &changed);
	if (ret)
		return rdt_fail(r, ret, "container %s: annotation %s: %s", in->id,
				RDTALLOC_OCI_SCHEMA_KEY, rdtalloc_errmsg(r));
	rdt_core_mark_groups_changed(r);
	return 0;
}

static int bind_cgroup(rdtalloc_t *r, int g, const char *path, struct rdt_oci_ctr *c)
{
	char rel[RDT_CGROUP_PATH_MAX];
	uint64_t id;
	int ret;

	const struct rdt_cgroup *cb;

	ret = rdt_core_check_cgroup(r, path, rel, sizeof(rel), &id);
	if (!ret)
		ret = rdt_core_cgroup_may_bind(r, rel);
	if (!ret)
		ret = rdt_core_backend(r)->ops->tasks_allowed(r);
	if (ret)
		return ret;
	rdt_core_cgroup_gc(r);
	/*
	 * A binding made by someone else (a person, another container) is
	 * theirs: the same group is used as it is and left alone at
	 * poststop; another group is a conflict the runtime must see.
	 */
	cb = rdt_cgroup_find(rdt_core_state(r), rel);
	if (cb && cb->group != g)
		return rdt_fail(r, -EBUSY, "container %s: its cgroup %s is bound to group %s, not "
				"%s: unbind it (rdtctl cgroup unbind) or annotate the container "
				"%s=%s", c->id, rel, rdt_core_state(r)->groups[cb->group].name,
				rdt_core_state(r)->groups[g].name, RDTALLOC_OCI_GROUP_KEY,
				rdt_core_state(r)->groups[cb->group].name);
	if (!cb) {
		ret = rdt_bind_cgroup(rdt_core_state(r), g, rel, id);
		if (ret)
			return rdt_fail(r, ret, "%s", rdt_core_state(r)->err);
		rdt_core_mark_cgroups_changed(r);
		c->bound = true;
	}
	c->cgroup = strdup(rel);
	if (!c->cgroup)
		return rdt_fail(r, -ENOMEM, "out of memory");
	c->cgroup_id = id;
	return 0;
}

/*
 * Another placed container in the same cgroup and group, to which the
 * binding passes when the one that made it goes; NULL when none.
 */
static struct rdt_oci_ctr *cgroup_heir(struct rdt_state *st, const struct rdt_oci_ctr *c)
{
	unsigned int i;

	for (i = 0; i < rdt_oci(st)->n; i++) {
		struct rdt_oci_ctr *o = &rdt_oci(st)->v[i];

		if (o != c && o->cgroup && o->group_seq == c->group_seq &&
		    !strcmp(o->cgroup, c->cgroup))
			return o;
	}
	return NULL;
}

/*
 * A class the goresctrl configuration reserved (its kubernetes options) is
 * refused when it came from an annotation of the kind it denies, as
 * goresctrl's ContainerClassFromAnnotations does: the container's own
 * (io.kubernetes.cri.rdt-class) or the pod's (both pod keys). rdtalloc.group
 * counts as the pod's: CRI-O passes a pod's annotations on to its
 * containers, so a pod author can write it as well as the pod keys.
 */
static int class_allowed(rdtalloc_t *r, const struct rdt_oci_in *in, int g)
{
	bool pod = strcmp(in->key, RDTALLOC_OCI_CRI_CLASS_KEY) != 0;
	unsigned int deny = rdt_policy_of(rdt_core_state(r), g);

	if (!(deny & (pod ? RDT_POLICY_DENY_POD : RDT_POLICY_DENY_CONTAINER)))
		return 0;
	return rdt_fail(r, -EPERM, "container %s: RDT class '%s' is not allowed from %s "
			"annotations (annotation %s%s): the goresctrl configuration applied gives "
			"the class kubernetes.%s", in->id, in->group ? in->group : in->root_class,
			pod ? "pod" : "container", in->key,
			in->from_class || in->root_class ? "" : ", which a pod may carry",
			pod ? "denyPodAnnotation" : "denyContainerAnnotation");
}

/*
 * What the hook does for a container is that container's ("oci:ID"): an
 * apply --prune or an agent restart leaves it, and its poststop undoes only
 * what is still its own (a person may have taken it over with --force).
 */
static void container_owner(const char *id, char *buf, size_t len)
{
	size_t n = strlen(id);

	/* an id too long for an owner: its head and the FNV-1a of all of it */
	if (n + 4 > RDT_OWNER_MAX)
		snprintf(buf, len, "oci:%.*s~%016llx", RDT_OWNER_MAX - 4 - 17, id,
			 (unsigned long long)rdt_config_checksum_add(RDT_CONFIG_CHECKSUM_INIT, id,
								     n));
	else
		snprintf(buf, len, "oci:%s", id);
}

static int as_container(rdtalloc_t *r, const char *id)
{
	char owner[RDT_OWNER_MAX + 1];

	container_owner(id, owner, sizeof(owner));
	return rdt_core_set_writer(r, owner, false);
}

/* Is owner o of rdt_core_state(r) container id's? */
static bool container_owns(const rdtalloc_t *r, unsigned int o, const char *id)
{
	const char *name = rdt_owner_name(rdt_core_state(r), o);
	char owner[RDT_OWNER_MAX + 1];

	container_owner(id, owner, sizeof(owner));
	return name && !strcmp(name, owner);
}

/*
 * A process is in one container: a binding another container's record
 * still holds (its poststop never came, the record outlived it) is this
 * one's now. What a person or configuration bound stays theirs.
 */
static int bind_process(rdtalloc_t *r, int g, pid_t pid)
{
	const struct rdt_task *t = rdt_task_map_get(&rdt_core_state(r)->tasks, pid);
	const char *o = t ? rdt_owner_name(rdt_core_state(r), t->owner) : NULL;
	bool force = rdt_core_state(r)->force;
	int ret;

	if (o && !strncmp(o, "oci:", 4))
		rdt_core_state(r)->force = true;
	ret = rdt_core_bind_task(r, g, pid);
	rdt_core_state(r)->force = force;
	return ret;
}

static int place(rdtalloc_t *r, const struct rdt_oci_in *in, int *what)
{
	struct rdt_oci_ctr c = { 0 }, *old;
	char cg[RDT_CGROUP_PATH_MAX];
	int ret, g;

	ret = as_container(r, in->id);
	if (ret)
		return ret;
	rdt_oci_state_gc(rdt_core_state(r));
	g = rdt_group_find(rdt_core_state(r), in->group);
	old = find_ctr(rdt_core_state(r), in->id);
	if (old && g > 0 && old->group_seq == rdt_core_state(r)->groups[g].seq) {
		*what = old->cgroup ? RDTALLOC_OCI_CGROUP : RDTALLOC_OCI_PROCESS;
		return 0;	/* placed at createRuntime already: prestart */
	}
	if (old)
		return rdt_fail(r, -EEXIST, "container %s is placed in another group already",
				in->id);
	if (rdt_oci(rdt_core_state(r))->n >= RDT_OCI_CONTAINERS_MAX)
		return rdt_fail(r, -ENOSPC, "%u containers placed already: at most that many",
				RDT_OCI_CONTAINERS_MAX);
	if (g < 0 && in->from_class)
		return rdt_fail(r, -ENOENT, "container %s: no group '%s' (RDT class of annotation "
				"%s); make the class's group (rdtctl apply --format goresctrl "
				"FILE, the runtime's rdt_config_file)", in->id, in->group,
				in->key);
	if (g >= 0) {
		ret = class_allowed(r, in, g);
		if (ret)
			return ret;
	}
	if (g < 0 && !in->schema)
		return rdt_fail(r, -ENOENT, "container %s: no group '%s' (annotation %s); give "
				"annotation %s with a schema to have it made", in->id, in->group,
				RDTALLOC_OCI_GROUP_KEY, RDTALLOC_OCI_SCHEMA_KEY);
	if (g < 0) {
		ret = make_group(r, in, &g);
		if (ret)
			return ret;
		c.created = true;
	}
	snprintf(c.id, sizeof(c.id), "%s", in->id);
	c.group_seq = rdt_core_state(r)->groups[g].seq;
	/* its init, so that a container gone without poststop is known gone */
	if (!rdt_task_info(in->pid, &c.start, NULL))
		c.pid = in->pid;
	ret = own_cgroup(r, in, cg, sizeof(cg));
	if (!ret && cg[0])
		ret = bind_cgroup(r, g, cg, &c);
	else if (!ret)
		ret = bind_process(r, g, in->pid);
	if (!ret && add_ctr(rdt_core_state(r), &c))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	if (ret) {
		free(c.cgroup);
		return ret;
	}
	rdt_core_mark_dirty(r);
	*what = c.cgroup ? RDTALLOC_OCI_CGROUP : RDTALLOC_OCI_PROCESS;
	return 0;
}

/* Group g, made by container c, is the next container's in it (which removes it at its end). */
static int hand_group(rdtalloc_t *r, int g, const struct rdt_oci_ctr *c)
{
	char owner[RDT_OWNER_MAX + 1];
	unsigned int i, o;

	for (i = 0; i < rdt_oci(rdt_core_state(r))->n; i++) {
		const struct rdt_oci_ctr *n = &rdt_oci(rdt_core_state(r))->v[i];

		if (n == c || n->group_seq != c->group_seq)
			continue;
		container_owner(n->id, owner, sizeof(owner));
		if (rdt_owner_intern(rdt_core_state(r), owner, &o))
			return rdt_fail(r, -ENOMEM, "out of memory");
		rdt_core_state(r)->groups[g].owner = o;
		return 0;
	}
	return 0;
}

/* A process the container bound outlives its record: its binding is nobody's now. */
static void disown_task(rdtalloc_t *r, const struct rdt_oci_ctr *c)
{
	struct rdt_task *t = c->pid ? rdt_task_map_get(&rdt_core_state(r)->tasks, c->pid) : NULL;

	/* in place: the owner is no part of the map's key */
	if (t && container_owns(r, t->owner, c->id))
		t->owner = 0;
}

/* The binding goes; a group made for this container alone goes with it. */
static int release_ctr(rdtalloc_t *r, struct rdt_oci_ctr *c, int *what)
{
	const struct rdt_cgroup *cb;
	struct rdt_oci_ctr *heir;
	unsigned int i;
	bool shared = false;
	int g, ret = 0;

	ret = as_container(r, c->id);
	if (ret)
		return ret;
	g = rdt_group_by_seq(rdt_core_state(r), c->group_seq);
	/* only a binding this container's createRuntime made, and none another still needs */
	if (c->cgroup && c->bound && (heir = cgroup_heir(rdt_core_state(r), c))) {
		heir->bound = true;
		cb = rdt_cgroup_find(rdt_core_state(r), c->cgroup);
		if (cb && container_owns(r, cb->owner, c->id)) {
			char owner[RDT_OWNER_MAX + 1];
			unsigned int o;

			/* the binding is the heir's now */
			container_owner(heir->id, owner, sizeof(owner));
			if (rdt_owner_intern(rdt_core_state(r), owner, &o))
				return rdt_fail(r, -ENOMEM, "out of memory");
			rdt_core_state(r)->cgroups[cb - rdt_core_state(r)->cgroups].owner = o;
		}
	} else if (c->cgroup && c->bound && (cb = rdt_cgroup_find(rdt_core_state(r), c->cgroup)) &&
		   g > 0 && cb->group == g && (!cb->owner || container_owns(r, cb->owner, c->id))) {
		ret = rdt_bind_cgroup(rdt_core_state(r), 0, c->cgroup, cb->id);
		if (ret)
			return rdt_fail(r, ret, "%s", rdt_core_state(r)->err);
		rdt_core_mark_cgroups_changed(r);
	}
	for (i = 0; i < rdt_oci(rdt_core_state(r))->n; i++) {
		const struct rdt_oci_ctr *o = &rdt_oci(rdt_core_state(r))->v[i];

		shared |= o != c && o->group_seq == c->group_seq;
	}
	if (c->created && shared) {
		/* another container holds it: that one removes it at its end */
		for (i = 0; i < rdt_oci(rdt_core_state(r))->n; i++) {
			struct rdt_oci_ctr *o = &rdt_oci(rdt_core_state(r))->v[i];

			if (o != c && o->group_seq == c->group_seq)
				o->created = true;
		}
		ret = g > 0 && container_owns(r, rdt_core_state(r)->groups[g].owner, c->id) ?
		      hand_group(r, g, c) : 0;
		if (ret)
			return ret;
	} else if (c->created && g > 0 &&
		   (!rdt_core_state(r)->groups[g].owner ||
		    container_owns(r, rdt_core_state(r)->groups[g].owner, c->id))) {
		ret = rdt_group_del(rdt_core_state(r), g);
		if (ret)
			return rdt_fail(r, ret, "container %s: removing group %s: %s", c->id,
					rdt_core_state(r)->groups[g].name, rdt_core_state(r)->err);
		rdt_core_mark_groups_changed(r);
		*what = RDTALLOC_OCI_REMOVED_GROUP;
	}
	if (*what != RDTALLOC_OCI_REMOVED_GROUP)
		*what = RDTALLOC_OCI_RELEASED;
	disown_task(r, c);
	drop_ctr(rdt_core_state(r), c);
	rdt_core_mark_dirty(r);
	return 0;
}

static int release(rdtalloc_t *r, const struct rdt_oci_in *in, int *what)
{
	struct rdt_oci_ctr *c = find_ctr(rdt_core_state(r), in->id);

	if (!c)
		return 0;	/* never placed, or its group was removed by hand */
	return release_ctr(r, c, what);
}

/* Is container c gone, though its poststop never ran? */
static bool ctr_gone(rdtalloc_t *r, const struct rdt_oci_ctr *c)
{
	const char *root;
	char path[RDT_CGROUP_PATH_MAX + 4096];
	struct stat sb;

	if (c->pid && rdt_task_alive(c->pid, c->start))
		return false;
	if (!c->cgroup)
		return c->pid != 0;	/* 0.5.0's record of a process: kept, not guessed */
	root = rdt_core_cgroup_root(r);
	rdt_clear_err(r);
	if (!root)
		return false;	/* no cgroup2 mount to look in: not known gone */
	snprintf(path, sizeof(path), "%s/%s", root, c->cgroup);
	if (stat(path, &sb))
		return errno == ENOENT;
	/* a new cgroup of the same name (a container of the same id made again) */
	return c->cgroup_id && (uint64_t)sb.st_ino != c->cgroup_id;
}

int rdt_oci_gc(rdtalloc_t *r)
{
	unsigned int i = 0;
	int released = 0, ret, what;

	rdt_oci_state_gc(rdt_core_state(r));
	while (i < rdt_oci(rdt_core_state(r))->n) {
		struct rdt_oci_ctr *c = &rdt_oci(rdt_core_state(r))->v[i];

		if (!ctr_gone(r, c)) {
			i++;
			continue;
		}
		what = RDTALLOC_OCI_IGNORED;
		ret = release_ctr(r, c, &what);	/* drops rdt_oci(rdt_core_state(r))->v[i] */
		if (ret)
			return ret;
		released++;
	}
	return released;
}

/* ---- rdtalloc_oci_hook's steps (oci/entry.c opens and closes the contexts) ---- */

int rdt_oci_read(const char *stage, const char *state, size_t len, enum rdt_oci_stage *sg,
		 json_object **root, struct rdt_oci_in *in)
{
	int ret = stage_of(stage, sg);

	/* the stages that do nothing succeed whatever the runtime wrote */
	if (!ret && *sg != RDT_OCI_NONE)
		ret = parse_state(state, len, *sg == RDT_OCI_PLACE, root, in);
	return ret;
}

int rdt_oci_root_allowed(rdtalloc_t *r, const struct rdt_oci_in *in)
{
	int ret = rdt_core_begin(r, false);

	if (!ret)
		ret = rdt_core_end(r, false, class_allowed(r, in, 0));
	return ret;
}

int rdt_oci_act(rdtalloc_t *r, enum rdt_oci_stage sg, const struct rdt_oci_in *in, int *what)
{
	int ret = rdt_core_begin(r, true);

	if (ret)
		return ret;
	/* containers gone without poststop go first: no agent needed for that */
	ret = rdt_oci_gc(r);
	if (ret >= 0)
		ret = sg == RDT_OCI_PLACE ? place(r, in, what) : release(r, in, what);
	return rdt_core_end(r, true, ret);
}
