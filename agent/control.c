// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control: the controller inside the agent (--control; docs/control.md).
 * Its own thread and its own context on the same state, so that a decision
 * never holds up a join: it runs the configuration the state keeps
 * (rdtctl control set) with rdtalloc_control_run, logs every decision with
 * its reason to the journal, and counts intervals and decisions for
 * /metrics. Without a configuration it waits for one (looking every 5 s);
 * a configuration cleared or failing ends the run, which starts again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"

struct control {
	struct agent *a;
	pthread_t th;
	volatile int stop;
	char said[256];			/* the last failure said (said once until it changes) */
};

/* The domain's last decision, for agent.json (rdtctl agent status); under st->mu. */
static void keep_decision(struct agent_stats *st, const struct rdtalloc_control_record *rec)
{
	struct agent_decision *d = NULL;
	size_t i;

	st->control_decisions++;
	for (i = 0; i < AGENT_DOMAINS_MAX && !d; i++)
		if (!st->decisions[i].at || st->decisions[i].cache_id == rec->cache_id)
			d = &st->decisions[i];
	if (!d)
		return;		/* more domains than status shows: counted only */
	d->cache_id = rec->cache_id;
	d->interval = rec->interval;
	d->at = agent_now();
	snprintf(d->action, sizeof(d->action), "%s", rec->action ? rec->action : "");
	snprintf(d->reason, sizeof(d->reason), "%s", rec->reason ? rec->reason : "");
}

static int on_record(const struct rdtalloc_control_record *rec, void *arg)
{
	struct control *c = arg;

	pthread_mutex_lock(&c->a->st.mu);
	if (rec->kind == RDTALLOC_CONTROL_INTERVAL)
		c->a->st.control_intervals++;
	else if (rec->kind == RDTALLOC_CONTROL_DECISION)
		keep_decision(&c->a->st, rec);
	pthread_mutex_unlock(&c->a->st.mu);
	/* the group it is about by name, where there is one */
	if (rec->kind == RDTALLOC_CONTROL_DECISION)
		agent_log("control: after interval %llu: %s%s%s: %s",
			  (unsigned long long)rec->interval, rec->action, rec->group ? " " : "",
			  rec->group ? rec->group : "", rec->reason);
	return 0;
}

static void wait_s(struct control *c, unsigned int s)
{
	for (unsigned int i = 0; i < s * 10 && !c->stop; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 100000000L }, NULL);
}

static void say_once(struct control *c, const char *what)
{
	if (!strcmp(c->said, what))
		return;
	snprintf(c->said, sizeof(c->said), "%s", what);
	agent_log("control: %s", what);
}

static void *loop(void *arg)
{
	struct control *c = arg;

	while (!c->stop) {
		rdtalloc_t *r;
		int ret = rdtalloc_open(&r, &c->a->opts);

		if (ret) {
			say_once(c, rdtalloc_errmsg(NULL));
			wait_s(c, 5);
			continue;
		}
		ret = rdtalloc_control_run(r, 0, &c->stop, on_record, c);
		if (ret == -ENOENT)
			say_once(c, "no controller is configured in this state (rdtctl control "
				 "set): looking again every 5 s");
		else if (ret)
			say_once(c, rdtalloc_errmsg(r));
		if (ret && !c->stop) {
			pthread_mutex_lock(&c->a->st.mu);
			c->a->st.control_errors += ret != -ENOENT;
			pthread_mutex_unlock(&c->a->st.mu);
		}
		rdtalloc_close(r);
		if (!c->stop)
			wait_s(c, 5);
	}
	return NULL;
}

struct control *control_start(struct agent *a, char *why, size_t len)
{
	struct control *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	c->a = a;
	if (pthread_create(&c->th, NULL, loop, c)) {
		snprintf(why, len, "cannot start the controller's thread");
		free(c);
		return NULL;
	}
	return c;
}

void control_stop(struct control *c)
{
	if (!c)
		return;
	c->stop = 1;
	pthread_join(c->th, NULL);
	free(c);
}
