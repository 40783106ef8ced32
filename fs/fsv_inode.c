/*
 * fsv_inode.c - the inode table: which node a kernel inode number names.
 *
 * Two kinds of nodes share one number space:
 *   - synthetic nodes (runs, status files, ...) get a number derived from
 *     their canonical path (a 64-bit hash with the top bit set; the root
 *     is 1), so a name keeps its number for the life of the mount;
 *   - pass-through nodes (files and directories of workspaces and task
 *     packages) get the next number of a counter (top bit clear) and hold
 *     an O_PATH descriptor of the real object, as in libfuse's
 *     passthrough_ll.c.  They are also indexed by (device, inode, root)
 *     so that two names of one real file share one node (a file reached
 *     through two workspaces gets one node in each: each answers to its
 *     own workspace's finality).  A directory node holds an inotify
 *     watch while it exists (fsv_watch.c), indexed by watch descriptor.
 *
 * Invariants (all under fs->nodes_lock): a node is in by_ino exactly while
 * the kernel holds lookup references to it (nlookup > 0), and a
 * pass-through node is in by_src for the same period; the root is never
 * freed.  A node pointer obtained from fsv_node_get() stays valid while
 * the request that named its number is being served, because the kernel
 * does not forget an inode that a request in flight refers to.  Holding
 * the O_PATH descriptor pins the real inode, so its number cannot be
 * reused by another file while the node exists.
 */
#include "fsv.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SYNTH_BIT ((fuse_ino_t)1 << 63)
#define INITIAL_BUCKETS 1024

fuse_ino_t fsv_path_ino(const char *path)
{
	if (strcmp(path, "/") == 0)
		return FUSE_ROOT_ID;
	return (fuse_ino_t)hash64_str(0x61726e61, path) | SYNTH_BIT;
}

static size_t ino_bucket(const struct fsv *fs, fuse_ino_t ino)
{
	return (size_t)(mix64(ino) & (fs->nbuckets - 1));
}

static size_t src_bucket(const struct fsv *fs, dev_t dev, ino_t ino,
			 const struct fsv_root *root)
{
	uint64_t h = mix64((uint64_t)dev ^ mix64((uint64_t)ino)) ^
		     (uint64_t)(uintptr_t)root;

	return (size_t)(mix64(h) & (fs->nbuckets - 1));
}

static void link_node(struct fsv *fs, struct fsv_node *n)
{
	size_t b = ino_bucket(fs, n->ino);

	n->next_ino = fs->by_ino[b];
	fs->by_ino[b] = n;
	if (n->kind == FSV_PASS) {
		b = src_bucket(fs, n->dev, n->src_ino, n->root);
		n->next_src = fs->by_src[b];
		fs->by_src[b] = n;
	}
	fs->nnodes++;
}

static void unlink_node(struct fsv *fs, struct fsv_node *n)
{
	struct fsv_node **pp = &fs->by_ino[ino_bucket(fs, n->ino)];

	while (*pp && *pp != n)
		pp = &(*pp)->next_ino;
	if (*pp)
		*pp = n->next_ino;
	if (n->kind == FSV_PASS) {
		pp = &fs->by_src[src_bucket(fs, n->dev, n->src_ino, n->root)];
		while (*pp && *pp != n)
			pp = &(*pp)->next_src;
		if (*pp)
			*pp = n->next_src;
		fsv_watch_remove(fs, n);
	}
	fs->nnodes--;
}

/* Doubles the bucket arrays when chains grow past two nodes on average. */
static void maybe_grow(struct fsv *fs)
{
	struct fsv_node **old = fs->by_ino;
	size_t oldn = fs->nbuckets;

	if (fs->nnodes < 2 * fs->nbuckets)
		return;
	free(fs->by_src);
	fs->nbuckets *= 2;
	fs->by_ino = xcalloc(fs->nbuckets, sizeof(*fs->by_ino));
	fs->by_src = xcalloc(fs->nbuckets, sizeof(*fs->by_src));
	fs->nnodes = 0;
	for (size_t b = 0; b < oldn; b++) {
		struct fsv_node *n = old[b], *next;
		for (; n; n = next) {
			next = n->next_ino;
			link_node(fs, n);
		}
	}
	free(old);
}

void fsv_nodes_init(struct fsv *fs)
{
	pthread_mutex_init(&fs->nodes_lock, NULL);
	fs->nbuckets = INITIAL_BUCKETS;
	fs->by_ino = xcalloc(fs->nbuckets, sizeof(*fs->by_ino));
	fs->by_src = xcalloc(fs->nbuckets, sizeof(*fs->by_src));
	fs->next_ino = 2;
	memset(&fs->root, 0, sizeof(fs->root));
	fs->root.ino = FUSE_ROOT_ID;
	fs->root.kind = FSV_ROOT;
	fs->root.path = xstrdup("/");
	fs->root.fd = -1;
	fs->root.wd = -1;
	fs->root.nlookup = 1;
	link_node(fs, &fs->root);
}

static void node_free(struct fsv_node *n)
{
	fsv_watch_node_release(n);
	if (n->fd >= 0)
		close(n->fd);
	free(n->path);
	free(n->run);
	free(n->run_b);
	free(n->task);
	free(n);
}

void fsv_nodes_free(struct fsv *fs)
{
	for (size_t b = 0; b < fs->nbuckets; b++) {
		struct fsv_node *n = fs->by_ino[b], *next;
		for (; n; n = next) {
			next = n->next_ino;
			if (n != &fs->root)
				node_free(n);
		}
	}
	free(fs->by_ino);
	free(fs->by_src);
	free(fs->root.path);
	fs->by_ino = fs->by_src = NULL;
	pthread_mutex_destroy(&fs->nodes_lock);
}

static struct fsv_node *find_ino(struct fsv *fs, fuse_ino_t ino)
{
	struct fsv_node *n = fs->by_ino[ino_bucket(fs, ino)];

	while (n && n->ino != ino)
		n = n->next_ino;
	return n;
}

struct fsv_node *fsv_node_get(struct fsv *fs, fuse_ino_t ino)
{
	struct fsv_node *n;

	pthread_mutex_lock(&fs->nodes_lock);
	n = find_ino(fs, ino);
	pthread_mutex_unlock(&fs->nodes_lock);
	return n;
}

static char *dup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct fsv_node *fsv_node_synth(struct fsv *fs, const struct fsv_spec *spec,
				const char *path)
{
	fuse_ino_t ino = fsv_path_ino(path);
	struct fsv_node *n;

	pthread_mutex_lock(&fs->nodes_lock);
	/* Probe past the (astronomically unlikely) hash collision: the
	 * first free number or the node already holding this path. */
	for (;;) {
		n = find_ino(fs, ino);
		if (!n || (n->path && strcmp(n->path, path) == 0))
			break;
		ino = ((ino + 1) & ~SYNTH_BIT) | SYNTH_BIT;
		if (ino == FUSE_ROOT_ID)
			ino++;
	}
	if (!n) {
		n = xcalloc(1, sizeof(*n));
		n->ino = ino;
		n->kind = spec->kind;
		n->path = xstrdup(path);
		n->run = dup_opt(spec->run);
		n->run_b = dup_opt(spec->run_b);
		n->task = dup_opt(spec->task);
		n->fd = -1;
		n->wd = -1;
		link_node(fs, n);
		maybe_grow(fs);
	}
	n->nlookup++;
	pthread_mutex_unlock(&fs->nodes_lock);
	return n;
}

struct fsv_node *fsv_node_find_pass(struct fsv *fs, dev_t dev, ino_t ino,
				    const struct fsv_root *root)
{
	struct fsv_node *n = fs->by_src[src_bucket(fs, dev, ino, root)];

	while (n && !(n->dev == dev && n->src_ino == ino && n->root == root))
		n = n->next_src;
	return n;
}

void fsv_nodes_each_pass(struct fsv *fs, void (*fn)(struct fsv_node *, void *),
			 void *arg)
{
	for (size_t b = 0; b < fs->nbuckets; b++)
		for (struct fsv_node *n = fs->by_src[b]; n; n = n->next_src)
			fn(n, arg);
}

struct fsv_node *fsv_node_pass(struct fsv *fs, int fd, const struct stat *st,
			       struct fsv_root *root, bool covered)
{
	struct fsv_node *n;

	pthread_mutex_lock(&fs->nodes_lock);
	n = fsv_node_find_pass(fs, st->st_dev, st->st_ino, root);
	if (n) {
		close(fd);
		if (!S_ISDIR(st->st_mode) && covered)
			n->covered = true;
	} else {
		n = xcalloc(1, sizeof(*n));
		n->ino = fs->next_ino++;
		n->kind = FSV_PASS;
		n->fd = fd;
		n->dev = st->st_dev;
		n->src_ino = st->st_ino;
		n->root = root;
		n->wd = -1;
		n->covered = covered && !S_ISDIR(st->st_mode);
		link_node(fs, n);
		if (S_ISDIR(st->st_mode))
			fsv_watch_add(fs, n);
		maybe_grow(fs);
	}
	n->nlookup++;
	pthread_mutex_unlock(&fs->nodes_lock);
	return n;
}

void fsv_node_ref(struct fsv *fs, struct fsv_node *n)
{
	pthread_mutex_lock(&fs->nodes_lock);
	n->nlookup++;
	pthread_mutex_unlock(&fs->nodes_lock);
}

void fsv_node_forget(struct fsv *fs, fuse_ino_t ino, uint64_t nlookup)
{
	struct fsv_node *n;

	pthread_mutex_lock(&fs->nodes_lock);
	n = find_ino(fs, ino);
	if (!n || n == &fs->root) {
		pthread_mutex_unlock(&fs->nodes_lock);
		return;
	}
	n->nlookup = n->nlookup > nlookup ? n->nlookup - nlookup : 0;
	if (n->nlookup == 0)
		unlink_node(fs, n);
	else
		n = NULL;
	pthread_mutex_unlock(&fs->nodes_lock);
	if (n)
		node_free(n);
}
