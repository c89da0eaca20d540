// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_oci: rdtalloc_oci_hook on the simulator, with a real child
 * process as the container's init (in this test's cgroup, so it is bound
 * as a process). The state JSON's checks with their exact messages, and
 * that a refusal changes nothing; a container without the annotation opens
 * nothing (no state is made); a group made from rdtalloc.schema and removed
 * at poststop; a group that existed stays; prestart after createRuntime is
 * the same placement; a group made for two containers goes with the last.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>

#include "test_api_util.h"

static char dir[64];
static pid_t child;

static int setup(void **state)
{
	tu_mkdtemp(dir);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	return child > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	tu_rm_rf(dir);
	return 0;
}

static int hook(const char *stage, const char *json, int *what)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2);

	int ret = rdtalloc_oci_hook(&o, stage, json, strlen(json), what);

	if (ret < 0)
		print_message("hook %s: %d (%s)\n", stage, ret, rdtalloc_errmsg(NULL));
	return ret;
}

/* A state JSON for container id with pid child and the annotations given (JSON members). */
static char *state_of(const char *id, const char *ann)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "{\"ociVersion\": \"1.0.2\", \"id\": \"%s\", \"status\": "
		 "\"creating\", \"pid\": %d, \"bundle\": \"/b\", \"annotations\": {%s}}", id,
		 (int)child, ann);
	return buf;
}

static rdtalloc_t *open_dir(void)
{
	return tu_open(dir, M2, 0);
}

static void refused(const char *stage, const char *json, int err, const char *msg)
{
	int what = -1;

	assert_int_equal(hook(stage, json, &what), err);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
}

static bool state_exists(void)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/state.json", dir);
	return access(p, F_OK) == 0;
}

static void input_checks(void **state)
{
	char big[RDTALLOC_OCI_STATE_MAX + 2];
	int what;

	refused("createRuntime", "", -EINVAL,
		"container state: empty (the runtime writes it to standard input)");
	refused("create", "{}", -EINVAL, "OCI hook stage 'create': not one of createRuntime, "
		"prestart, poststop (createContainer, startContainer and poststart do nothing)");
	refused("createRuntime", "{\"id\": ", -EINVAL,
		"container state: not one JSON document (it ends early, at byte 7)");
	refused("createRuntime", "{} {}", -EINVAL,
		"container state: not one JSON document (more after the end, at byte 3)");
	refused("createRuntime", "[1]", -EINVAL, "container state: not a JSON object");
	/* a bare scalar is a whole document, just not an object */
	refused("createRuntime", "null", -EINVAL, "container state: not a JSON object");
	refused("createRuntime", "123", -EINVAL, "container state: not a JSON object");
	refused("createRuntime", " true\n", -EINVAL, "container state: not a JSON object");
	/* \u0000 would cut the id, the group or the schema short: refused, not cut */
	refused("createRuntime", state_of("c1\\u0000zzz", "\"rdtalloc.group\": \"web\""), -EINVAL,
		"container state: not one JSON document (a string holds \\u0000, which no name "
		"or value may, at byte 33)");
	{
		/* the byte depends on the length of the child's pid */
		const char *js = state_of("a", "\"rdtalloc.group\": \"web\\u0000!!\"");
		char want[160];

		snprintf(want, sizeof(want), "container state: not one JSON document (a string "
			 "holds \\u0000, which no name or value may, at byte %d)",
			 (int)(strstr(js, "\\u0000") - js));
		refused("createRuntime", js, -EINVAL, want);
	}
	/*
	 * json-c reads comments and single-quoted strings, JSON has neither: a double
	 * quote in one would hide a \u0000 from the guard (this placed the container)
	 */
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a\", \"pid\": 1, /* \" */ "
		"\"annotations\":{\"rdtalloc.group\":\"gold\\u0000evil\"}}", -EINVAL,
		"container state: not one JSON document (a slash outside a string (JSON has no "
		"comments), at byte 41)");
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a\" // \"\n}", -EINVAL,
		"container state: not one JSON document (a slash outside a string (JSON has no "
		"comments), at byte 30)");
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a\", 'x\"': 1, "
		"\"annotations\":{\"rdtalloc.group\":\"gold\\u0000evil\"}}", -EINVAL,
		"container state: not one JSON document (a single quote outside a string (JSON "
		"has no single-quoted strings), at byte 31)");
	/* inside a string they are characters like any other */
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a/'b\"}", -EINVAL,
		"container state: id \"a/'b\": 1 to 256 of A-Z a-z 0-9 _ + . -");
	/* an escaped backslash before "u0000" is six characters, not a NUL */
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a\\\\u0000\"}", -EINVAL,
		"container state: id \"a\\u0000\": 1 to 256 of A-Z a-z 0-9 _ + . -");
	refused("createRuntime", "{\"id\": \"a\"}", -EINVAL, "container state: no \"ociVersion\"");
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a/b\"}", -EINVAL,
		"container state: id \"a/b\": 1 to 256 of A-Z a-z 0-9 _ + . -");
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a\", \"pid\": -4}", -EINVAL,
		"container a: pid is not a process id");
	refused("createRuntime", "{\"ociVersion\": \"1\", \"id\": \"a\"}", -EINVAL,
		"container a: no pid (status unknown): not created yet?");
	refused("createRuntime", state_of("a", "\"rdtalloc.group\": 7"), -EINVAL,
		"annotation rdtalloc.group is not a string");
	refused("createRuntime", state_of("a", "\"rdtalloc.group\": \"a b\""), -EINVAL,
		"annotation rdtalloc.group=\"a b\": not a group name (1 to 63 of A-Z a-z 0-9 _ . -, "
		"not starting with '.', not default)");
	refused("createRuntime", state_of("a", "\"rdtalloc.schema\": \"L3:0=f\""), -EINVAL,
		"annotation rdtalloc.schema without rdtalloc.group: which group?");
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	refused("createRuntime", big, -E2BIG, "container state: 1048577 bytes, at most 1048576");
	/* none of it opened a state */
	assert_false(state_exists());
	/* not annotated, or a stage that does nothing: 0, and still no state */
	assert_int_equal(hook("createRuntime", state_of("a", "\"other\": \"x\""), &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	assert_int_equal(hook("poststart", state_of("a", "\"rdtalloc.group\": \"g\""), &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	/* the stages that do nothing succeed whatever they are given, as documented */
	assert_int_equal(hook("createContainer", "garbage", &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	assert_int_equal(hook("startContainer", "", &what), 0);
	assert_false(state_exists());
}

static void made_and_removed(void **state)
{
	const char *j = state_of("web-1", "\"rdtalloc.group\": \"web\", "
				 "\"rdtalloc.schema\": \"L3:0=f;1=f\"");
	char name[64];
	rdtalloc_t *r;
	int what;

	assert_int_equal(hook("createRuntime", j, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_PROCESS);
	r = open_dir();
	assert_schema(r, "web", "L3:0=0000f;1=0000f\n");
	assert_ok(r, rdtalloc_task_group(r, child, name, sizeof(name)));
	assert_string_equal(name, "web");
	rdtalloc_close(r);
	/* prestart too (older runtimes): the same placement, nothing new */
	assert_int_equal(hook("prestart", j, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_PROCESS);
	assert_int_equal(hook("poststop", j, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_REMOVED_GROUP);
	r = open_dir();
	assert_int_equal(rdtalloc_group_count(r), 1);
	assert_ok(r, rdtalloc_task_group(r, child, name, sizeof(name)));
	assert_string_equal(name, "default");
	rdtalloc_close(r);
	/* a second poststop: nothing recorded, nothing to do */
	assert_int_equal(hook("poststop", j, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
}

static void existing_group_stays(void **state)
{
	const char *j = state_of("db-1", "\"rdtalloc.group\": \"db\"");
	rdtalloc_t *r = open_dir();
	int what;

	/* no such group, no schema: refused, and the state as it was */
	refused("createRuntime", j, -ENOENT, "container db-1: no group 'db' (annotation "
		"rdtalloc.group); give annotation rdtalloc.schema with a schema to have it made");
	refused("createRuntime", state_of("db-1", "\"rdtalloc.group\": \"db\", "
					 "\"rdtalloc.schema\": \"L3:0=zz\""), -EINVAL,
		"container db-1: annotation rdtalloc.schema: L3 cache id 0: mask \"zz\" is not hex");
	assert_int_equal(rdtalloc_group_count(r), 1);
	assert_ok(r, rdtalloc_group_create(r, "db"));
	assert_int_equal(hook("createRuntime", j, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_PROCESS);
	/* placed in db already: another group for the same id is refused */
	refused("createRuntime", state_of("db-1", "\"rdtalloc.group\": \"web\", "
					 "\"rdtalloc.schema\": \"L3:0=f\""), -EEXIST,
		"container db-1 is placed in another group already");
	assert_int_equal(hook("poststop", j, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_RELEASED);
	assert_int_equal(rdtalloc_group_count(r), 2);
	assert_ok(r, rdtalloc_group_remove(r, "db"));
	rdtalloc_close(r);
}

/*
 * The CRI's RDT class annotations name the group, in goresctrl's order:
 * rdtalloc.group first, then the container's io.kubernetes.cri.rdt-class,
 * the pod's per-container key, the pod's key; the default class is the
 * default group (nothing to do); an unknown class is refused, named.
 */
static void cri_classes(void **state)
{
	rdtalloc_t *r = open_dir();
	char name[64];
	int what, ret;

	assert_ok(r, rdtalloc_group_create(r, "gold"));
	assert_ok(r, rdtalloc_group_create(r, "silver"));
	assert_ok(r, rdtalloc_group_create(r, "bronze"));
	rdtalloc_close(r);
	/* the pod's class for all its containers */
	assert_int_equal(hook("createRuntime", state_of("c1", "\"rdt.resources.beta.kubernetes.io/pod"
							"\": \"bronze\""), &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_PROCESS);
	r = open_dir();
	ret = rdtalloc_task_group(r, child, name, sizeof(name));
	assert_ok(r, ret);
	assert_string_equal(name, "bronze");
	rdtalloc_close(r);
	assert_int_equal(hook("poststop", state_of("c1", ""), &what), 0);
	/* the pod's key for this container (CRI-O's name key) beats the pod's */
	assert_int_equal(hook("createRuntime", state_of("c2",
		"\"rdt.resources.beta.kubernetes.io/pod\": \"bronze\", "
		"\"io.kubernetes.container.name\": \"app\", "
		"\"rdt.resources.beta.kubernetes.io/container.app\": \"silver\""), &what), 0);
	r = open_dir();
	assert_ok(r, rdtalloc_task_group(r, child, name, sizeof(name)));
	assert_string_equal(name, "silver");
	rdtalloc_close(r);
	assert_int_equal(hook("poststop", state_of("c2", ""), &what), 0);
	/* the container's class (containerd's key) beats both; rdtalloc.group beats it */
	assert_int_equal(hook("createRuntime", state_of("c3",
		"\"rdt.resources.beta.kubernetes.io/pod\": \"bronze\", "
		"\"io.kubernetes.cri.container-name\": \"app\", "
		"\"rdt.resources.beta.kubernetes.io/container.app\": \"silver\", "
		"\"io.kubernetes.cri.rdt-class\": \"gold\""), &what), 0);
	r = open_dir();
	assert_ok(r, rdtalloc_task_group(r, child, name, sizeof(name)));
	assert_string_equal(name, "gold");
	rdtalloc_close(r);
	assert_int_equal(hook("poststop", state_of("c3", ""), &what), 0);
	assert_int_equal(hook("createRuntime", state_of("c4",
		"\"io.kubernetes.cri.rdt-class\": \"gold\", \"rdtalloc.group\": \"bronze\""),
		&what), 0);
	r = open_dir();
	assert_ok(r, rdtalloc_task_group(r, child, name, sizeof(name)));
	assert_string_equal(name, "bronze");
	rdtalloc_close(r);
	assert_int_equal(hook("poststop", state_of("c4", ""), &what), 0);
	/* the default class: nothing to do */
	assert_int_equal(hook("createRuntime", state_of("c5", "\"io.kubernetes.cri.rdt-class\": "
							"\"system/default\""), &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	/* a class with no group, and one that cannot be a group name: named */
	refused("createRuntime", state_of("c6", "\"io.kubernetes.cri.rdt-class\": \"platinum\""),
		-ENOENT, "container c6: no group 'platinum' (RDT class of annotation "
		"io.kubernetes.cri.rdt-class); make the class's group (rdtctl apply --format "
		"goresctrl FILE, the runtime's rdt_config_file)");
	refused("createRuntime", state_of("c7", "\"rdt.resources.beta.kubernetes.io/pod\": "
						"\"a/b\""),
		-EINVAL, "annotation rdt.resources.beta.kubernetes.io/pod=\"a/b\": not a group "
		"name (1 to 63 of A-Z a-z 0-9 _ . -, not starting with '.', not default)");
}

/* The child's group. */
static void group_of_child(char *name, size_t len)
{
	rdtalloc_t *r = open_dir();

	assert_ok(r, rdtalloc_task_group(r, child, name, len));
	rdtalloc_close(r);
}

/* Container id with annotations ann placed in group, then stopped. */
static void placed_in(const char *id, const char *ann, const char *group)
{
	char name[64];
	int what;

	assert_int_equal(hook("createRuntime", state_of(id, ann), &what), 0);
	group_of_child(name, sizeof(name));
	assert_string_equal(name, group);
	assert_int_equal(hook("poststop", state_of(id, ""), &what), 0);
}

/*
 * goresctrl's kubernetes: {denyPodAnnotation, denyContainerAnnotation} of a
 * class, recorded when its configuration is applied: the hook refuses the
 * class from an annotation of the kind denied (rdtalloc.group counts as the
 * pod's), changing nothing, and takes it from the other kind. A file applied
 * again without the options lifts them.
 */
static void class_policy(void **state)
{
	static const char yaml[] =
		"partitions:\n"
		"  p:\n"
		"    l3Allocation: \"100%\"\n"
		"    classes:\n"
		"      gold:\n"
		"        l3Allocation: \"50%\"\n"
		"        kubernetes:\n"
		"          denyPodAnnotation: true\n"
		"      silver:\n"
		"        kubernetes: {denyContainerAnnotation: yes, denyPodAnnotation: false}\n"
		"      bronze:\n"
		"      system/default:\n"
		"        kubernetes:\n"
		"          denyPodAnnotation: true\n";
	static const char open_yaml[] =
		"partitions:\n  p:\n    l3Allocation: \"100%\"\n    classes:\n"
		"      gold:\n        l3Allocation: \"50%\"\n      silver:\n      bronze:\n";
	rdtalloc_t *r = open_dir();
	char name[64], before[64], rep[512], want[128];
	int what;

	/*
	 * gold, silver and bronze are cri_classes' groups: gold's schema changes; the
	 * child its last container left bound in gold stays, a binding the hook made
	 * (the container's: a configuration's member lists replace only what people
	 * and configurations bound)
	 */
	assert_int_equal(rdtalloc_goresctrl_apply(r, yaml, strlen(yaml), NULL, 0, rep, sizeof(rep),
						  NULL), 1);
	snprintf(want, sizeof(want), "schema gold L3:0=fffff;1=fffff -> L3:0=003ff;1=003ff\n");
	assert_string_equal(rep, want);
	rdtalloc_close(r);
	group_of_child(before, sizeof(before));
	refused("createRuntime", state_of("k1", "\"rdt.resources.beta.kubernetes.io/pod\": "
						"\"gold\""), -EPERM,
		"container k1: RDT class 'gold' is not allowed from pod annotations (annotation "
		"rdt.resources.beta.kubernetes.io/pod): the goresctrl configuration applied gives "
		"the class kubernetes.denyPodAnnotation");
	refused("createRuntime", state_of("k2", "\"io.kubernetes.cri.container-name\": \"app\", "
		"\"rdt.resources.beta.kubernetes.io/container.app\": \"gold\""), -EPERM,
		"container k2: RDT class 'gold' is not allowed from pod annotations (annotation "
		"rdt.resources.beta.kubernetes.io/container.app): the goresctrl configuration "
		"applied gives the class kubernetes.denyPodAnnotation");
	refused("createRuntime", state_of("k3", "\"rdtalloc.group\": \"gold\""), -EPERM,
		"container k3: RDT class 'gold' is not allowed from pod annotations (annotation "
		"rdtalloc.group, which a pod may carry): the goresctrl configuration applied gives "
		"the class kubernetes.denyPodAnnotation");
	refused("createRuntime", state_of("k4", "\"io.kubernetes.cri.rdt-class\": \"silver\""),
		-EPERM, "container k4: RDT class 'silver' is not allowed from container "
		"annotations (annotation io.kubernetes.cri.rdt-class): the goresctrl "
		"configuration applied gives the class kubernetes.denyContainerAnnotation");
	/* the default class: nothing to place, but refused as the others are */
	refused("createRuntime", state_of("k8", "\"rdt.resources.beta.kubernetes.io/pod\": "
						"\"system/default\""), -EPERM,
		"container k8: RDT class 'system/default' is not allowed from pod annotations "
		"(annotation rdt.resources.beta.kubernetes.io/pod): the goresctrl configuration "
		"applied gives the class kubernetes.denyPodAnnotation");
	assert_int_equal(hook("createRuntime", state_of("k9", "\"io.kubernetes.cri.rdt-class\": "
							"\"\""), &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	/* refused: nothing changed, no record */
	group_of_child(name, sizeof(name));
	assert_string_equal(name, before);
	/* the kind not denied */
	placed_in("k5", "\"io.kubernetes.cri.rdt-class\": \"gold\"", "gold");
	placed_in("k6", "\"rdt.resources.beta.kubernetes.io/pod\": \"silver\"", "silver");
	/*
	 * the same file without the options: no longer reserved (no change counted: the
	 * options are not, and k6's task is the container's binding, which the file leaves)
	 */
	r = open_dir();
	assert_int_equal(rdtalloc_goresctrl_apply(r, open_yaml, strlen(open_yaml), NULL, 0, NULL, 0,
						  NULL), 0);
	rdtalloc_close(r);
	placed_in("k7", "\"rdt.resources.beta.kubernetes.io/pod\": \"gold\"", "gold");
	assert_int_equal(hook("createRuntime", state_of("k10", "\"rdt.resources.beta.kubernetes.io/"
							"pod\": \"system/default\""), &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	/* a value Go's decoder would not read as a bool: refused, named */
	r = open_dir();
	assert_int_equal(rdtalloc_goresctrl_apply(r, "partitions:\n  p:\n    classes:\n      x:\n"
		"        kubernetes:\n          denyPodAnnotation: \"true\"\n", 95, NULL, 0, NULL, 0,
		NULL), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "goresctrl configuration: class x, kubernetes."
			    "denyPodAnnotation: not a boolean (line 6): true or false");
	rdtalloc_close(r);
}

static void shared_made_group(void **state)
{
	const char *ann = "\"rdtalloc.group\": \"pod\", \"rdtalloc.schema\": \"L3:0=3\"";
	char a[4096], b[4096];
	rdtalloc_t *r;
	int what;

	snprintf(a, sizeof(a), "%s", state_of("pod-a", ann));
	snprintf(b, sizeof(b), "%s", state_of("pod-b", ann));
	assert_int_equal(hook("createRuntime", a, &what), 0);
	assert_int_equal(hook("createRuntime", b, &what), 0);
	/* a made it, b is in it too: a's end leaves it to b's */
	assert_int_equal(hook("poststop", a, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_RELEASED);
	r = open_dir();
	assert_int_equal(rdtalloc_group_count(r), 2);
	rdtalloc_close(r);
	assert_int_equal(hook("poststop", b, &what), 0);
	assert_int_equal(what, RDTALLOC_OCI_REMOVED_GROUP);
	r = open_dir();
	assert_int_equal(rdtalloc_group_count(r), 1);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(input_checks),
		cmocka_unit_test(made_and_removed),
		cmocka_unit_test(existing_group_stays),
		cmocka_unit_test(shared_made_group),
		cmocka_unit_test(cri_classes),
		cmocka_unit_test(class_policy),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
