/*
 * refcache.c - reference outputs shared by the evaluations of one process
 * (struct eval_refcache, arena/eval.h): what the trusted reference runner
 * computed for one correctness trial - the trial's inputs and the
 * reference runner's memory after its call - kept so that the next
 * candidate of the same task, case, seed and trial is compared with the
 * same bytes without running the reference again (docs/evaluator.md,
 * "Reuse across evaluations", says why that is safe).
 *
 * The key (refcache_key, correctness.c) names everything the entry is a
 * function of: the reference artifact's content-addressed name, the
 * task's definition, the case's layout and the seed the trial's inputs
 * are drawn from.  A different reference or a changed task package gives
 * a different key: an entry is never shared across references.  Entries
 * live in this process's memory only: no file, so no process that runs
 * candidate code can read or write them (the controller is not dumpable:
 * eval.c), and only the correctness step puts them, from the reference
 * runner's memory after a checked call.
 *
 * Integrity: every entry carries the SHA-256 of its bytes, taken when it
 * is put and verified on every get; an entry whose bytes no longer match
 * (memory corruption, or eval_refcache_corrupt in tests) is dropped and
 * the caller recomputes the trial with the reference.
 *
 * Memory: entries are evicted least recently used first once their bytes
 * exceed the budget; an entry larger than the budget is not kept.
 * Entries are immutable once listed and pinned while an evaluation reads
 * them (ev_refcache_get / ev_refcache_unpin): eviction by another thread
 * frees an entry only after its last reader is done.
 *
 * Locking: one mutex guards the list, the pins and the counters; the bytes
 * of an entry are read without it (immutable, pinned).  Lookups scan the
 * list: a process holds at most a few thousand entries (tasks x cases x
 * trials x live seeds), and a scan compares 32-byte keys.
 */
#include "evaluation.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct ev_refentry {
	unsigned char key[32];
	unsigned char digest[32]; /* of in[] and shm, when put */
	int refs;		  /* pins, plus one while listed */
	bool listed;
	size_t bytes; /* charged against the budget */
	int nargs;
	size_t in_bytes[TASK_MAX_ARGS];
	void *in[TASK_MAX_ARGS]; /* io in/inout: the trial's inputs */
	size_t shm_size;
	unsigned char *shm; /* the reference runner's memory after */
	struct ev_refentry *prev, *next; /* most recent first */
};

struct eval_refcache {
	pthread_mutex_t mu;
	size_t budget, bytes;
	uint64_t hits, misses, evictions, corrupt;
	int n;
	struct ev_refentry *head, *tail;
};

struct eval_refcache *eval_refcache_new(size_t budget_bytes)
{
	struct eval_refcache *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->mu, NULL);
	c->budget = budget_bytes;
	return c;
}

static void entry_free(struct ev_refentry *en)
{
	for (int a = 0; a < TASK_MAX_ARGS; a++)
		free(en->in[a]);
	free(en->shm);
	free(en);
}

static void entry_digest(const struct ev_refentry *en, unsigned char d[32])
{
	struct sha256 h;

	sha256_init(&h);
	for (int a = 0; a < en->nargs; a++)
		if (en->in[a])
			sha256_update(&h, en->in[a], en->in_bytes[a]);
	if (en->shm)
		sha256_update(&h, en->shm, en->shm_size);
	sha256_final(&h, d);
}

static void unlink_entry(struct eval_refcache *c, struct ev_refentry *en)
{
	if (en->prev)
		en->prev->next = en->next;
	else
		c->head = en->next;
	if (en->next)
		en->next->prev = en->prev;
	else
		c->tail = en->prev;
	en->prev = en->next = NULL;
	en->listed = false;
	c->bytes -= en->bytes;
	c->n--;
}

static void push_front(struct eval_refcache *c, struct ev_refentry *en)
{
	en->prev = NULL;
	en->next = c->head;
	if (c->head)
		c->head->prev = en;
	c->head = en;
	if (!c->tail)
		c->tail = en;
	en->listed = true;
	c->bytes += en->bytes;
	c->n++;
}

/* Drops one reference (a pin, or the list's); frees the entry with the
 * last.  Under c->mu. */
static void put_ref(struct ev_refentry *en)
{
	if (--en->refs == 0)
		entry_free(en);
}

void eval_refcache_free(struct eval_refcache *c)
{
	if (!c)
		return;
	/* Every evaluation that used the cache has ended: no pins left. */
	while (c->head) {
		struct ev_refentry *en = c->head;
		unlink_entry(c, en);
		put_ref(en);
	}
	pthread_mutex_destroy(&c->mu);
	free(c);
}

void eval_refcache_stats(struct eval_refcache *c,
			 struct eval_refcache_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	out->hits = c->hits;
	out->misses = c->misses;
	out->evictions = c->evictions;
	out->corrupt = c->corrupt;
	out->entries = (uint64_t)c->n;
	out->bytes = c->bytes;
	out->budget = c->budget;
	pthread_mutex_unlock(&c->mu);
}

static struct ev_refentry *find(struct eval_refcache *c,
				const unsigned char key[32])
{
	for (struct ev_refentry *en = c->head; en; en = en->next)
		if (memcmp(en->key, key, 32) == 0)
			return en;
	return NULL;
}

const struct ev_refentry *ev_refcache_get(struct eval_refcache *c,
					  const unsigned char key[32])
{
	struct ev_refentry *en;
	unsigned char d[32];

	pthread_mutex_lock(&c->mu);
	en = find(c, key);
	if (en) {
		en->refs++;
		unlink_entry(c, en);
		push_front(c, en);
	}
	pthread_mutex_unlock(&c->mu);
	if (!en) {
		pthread_mutex_lock(&c->mu);
		c->misses++;
		pthread_mutex_unlock(&c->mu);
		return NULL;
	}
	/* Outside the lock: the bytes are immutable and pinned. */
	entry_digest(en, d);
	pthread_mutex_lock(&c->mu);
	if (memcmp(d, en->digest, 32) != 0) {
		/* Damaged since it was put: never used, dropped, and the
		 * caller runs the reference for it again. */
		int drop = 1; /* the pin */
		if (en->listed) {
			unlink_entry(c, en);
			drop++; /* and the list's */
		}
		en->refs -= drop;
		if (en->refs == 0)
			entry_free(en);
		c->corrupt++;
		c->misses++;
		en = NULL;
	} else {
		c->hits++;
	}
	pthread_mutex_unlock(&c->mu);
	return en;
}

void ev_refcache_unpin(struct eval_refcache *c, const struct ev_refentry *cen)
{
	struct ev_refentry *en = (struct ev_refentry *)cen;

	if (!en)
		return;
	pthread_mutex_lock(&c->mu);
	put_ref(en);
	pthread_mutex_unlock(&c->mu);
}

void *const *ev_refentry_inputs(const struct ev_refentry *en)
{
	return (void *const *)en->in;
}

const unsigned char *ev_refentry_shm(const struct ev_refentry *en)
{
	return en->shm;
}

/* Lists en (one reference: the list's) unless its key is there already;
 * evicts beyond the budget.  Takes ownership of en. */
static void insert(struct eval_refcache *c, struct ev_refentry *en)
{
	pthread_mutex_lock(&c->mu);
	if (find(c, en->key)) {
		/* Another evaluation put the same fact meanwhile. */
		pthread_mutex_unlock(&c->mu);
		entry_free(en);
		return;
	}
	push_front(c, en);
	while (c->bytes > c->budget && c->tail && c->tail != en) {
		struct ev_refentry *old = c->tail;
		unlink_entry(c, old);
		put_ref(old);
		c->evictions++;
	}
	pthread_mutex_unlock(&c->mu);
}

void ev_refcache_put(struct eval_refcache *c, const unsigned char key[32],
		     const struct task *t, const struct case_layout *l,
		     void *const *stage, const unsigned char *ref_shm)
{
	struct ev_refentry *en;
	size_t bytes = sizeof(*en) + l->shm_size;

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			bytes += l->bytes[a];
	if (bytes > c->budget)
		return;
	en = xcalloc(1, sizeof(*en));
	memcpy(en->key, key, 32);
	en->bytes = bytes;
	en->refs = 1;
	en->nargs = t->nargs;
	for (int a = 0; a < t->nargs; a++) {
		if (t->args[a].io == IO_OUT)
			continue;
		en->in_bytes[a] = l->bytes[a];
		en->in[a] = xmalloc(l->bytes[a] ? l->bytes[a] : 1);
		par_memcpy(en->in[a], stage[a], l->bytes[a]);
	}
	en->shm_size = l->shm_size;
	en->shm = xmalloc(l->shm_size ? l->shm_size : 1);
	par_memcpy(en->shm, ref_shm, l->shm_size);
	entry_digest(en, en->digest);
	insert(c, en);
}

void ev_refcache_mark(struct eval_refcache *c, const unsigned char key[32])
{
	struct ev_refentry *en = xcalloc(1, sizeof(*en));

	memcpy(en->key, key, 32);
	en->bytes = sizeof(*en);
	en->refs = 1;
	entry_digest(en, en->digest);
	insert(c, en);
}

bool ev_refcache_has(struct eval_refcache *c, const unsigned char key[32])
{
	const struct ev_refentry *en = ev_refcache_get(c, key);

	ev_refcache_unpin(c, en);
	return en != NULL;
}

int eval_refcache_corrupt(struct eval_refcache *c, int nth)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&c->mu);
	for (struct ev_refentry *en = c->head; en; en = en->next) {
		if (!en->shm)
			continue;
		if (nth-- > 0)
			continue;
		/* Bytes throughout the reference's memory, the top byte of
		 * a 32-bit word: any output it holds changes far beyond
		 * a tolerance. */
		for (size_t i = 3; i < en->shm_size; i += 4096)
			en->shm[i] ^= 0x40;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}
