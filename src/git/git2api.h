/* src/git/git2api.h — the libgit2 functions rtk uses, loaded at first use unless --disable-lazy-libs. */
#ifndef RTK_GIT2API_H
#define RTK_GIT2API_H

#include <git2.h>
#include <git2/sys/odb_backend.h>

/*
 * X(ret, name, params, args) for functions returning a value, XV(...) for void ones. A function
 * rtk calls that is missing here fails to link in the default (lazy) build, so the list stays whole.
 */
#define GIT2API_FUNCTIONS(X, XV)                                                                          \
	X(int, git_libgit2_init, (void), ())                                                          \
	X(int, git_libgit2_version, (int *major, int *minor, int *rev), (major, minor, rev))          \
	X(const git_error *, git_error_last, (void), ())                                              \
	X(int, git_repository_open_ext,                                                               \
	  (git_repository * *out, const char *path, unsigned int flags, const char *ceiling_dirs),    \
	  (out, path, flags, ceiling_dirs))                                                           \
	XV(void, git_repository_free, (git_repository * repo), (repo))                                \
	X(const char *, git_repository_path, (const git_repository *repo), (repo))                   \
	X(const char *, git_repository_workdir, (const git_repository *repo), (repo)) \
	X(int, git_revparse_single, (git_object **out, git_repository *repo, const char *spec), (out, repo, spec)) \
	X(int, git_object_peel, (git_object **peeled, const git_object *object, git_object_t target_type), (peeled, object, target_type)) \
	XV(void, git_object_free, (git_object *object), (object)) \
	X(int, git_repository_head_unborn, (git_repository *repo), (repo)) \
	X(int, git_commit_tree, (git_tree **tree_out, const git_commit *commit), (tree_out, commit)) \
	XV(void, git_tree_free, (git_tree *tree), (tree)) \
	XV(void, git_commit_free, (git_commit *commit), (commit)) \
	X(int, git_diff_options_init, (git_diff_options *opts, unsigned int version), (opts, version)) \
	X(int, git_diff_tree_to_workdir_with_index, (git_diff **diff, git_repository *repo, git_tree *old_tree, const git_diff_options *opts), (diff, repo, old_tree, opts)) \
	X(size_t, git_diff_num_deltas, (const git_diff *diff), (diff)) \
	X(const git_diff_delta *, git_diff_get_delta, (const git_diff *diff, size_t idx), (diff, idx)) \
	XV(void, git_diff_free, (git_diff *diff), (diff)) \
	X(int, git_commit_lookup, (git_commit **commit, git_repository *repo, const git_oid *id), (commit, repo, id)) \
	X(int, git_commit_lookup_prefix, (git_commit **commit, git_repository *repo, const git_oid *id, size_t len), (commit, repo, id, len)) \
	X(git_time_t, git_commit_time, (const git_commit *commit), (commit)) \
	X(const git_signature *, git_commit_author, (const git_commit *commit), (commit)) \
	X(const char *, git_commit_message, (const git_commit *commit), (commit)) \
	X(const char *, git_commit_summary, (git_commit *commit), (commit)) \
	X(unsigned int, git_commit_parentcount, (const git_commit *commit), (commit)) \
	X(const git_oid *, git_commit_parent_id, (const git_commit *commit, unsigned int n), (commit, n)) \
	X(const git_oid *, git_commit_id, (const git_commit *commit), (commit)) \
	X(const git_oid *, git_commit_tree_id, (const git_commit *commit), (commit)) \
	X(int, git_tree_lookup, (git_tree **out, git_repository *repo, const git_oid *id), (out, repo, id)) \
	X(int, git_diff_tree_to_tree, (git_diff **diff, git_repository *repo, git_tree *old_tree, git_tree *new_tree, const git_diff_options *opts), (diff, repo, old_tree, new_tree, opts)) \
	X(int, git_diff_patchid, (git_oid *out, git_diff *diff, git_diff_patchid_options *opts), (out, diff, opts)) \
	X(int, git_oid_fromstrn, (git_oid *out, const char *str, size_t length), (out, str, length)) \
	X(int, git_repository_is_shallow, (git_repository *repo), (repo)) \
	X(int, git_reference_lookup, (git_reference **out, git_repository *repo, const char *name), (out, repo, name)) \
	X(const char *, git_reference_symbolic_target, (const git_reference *ref), (ref)) \
	X(const git_oid *, git_reference_target, (const git_reference *ref), (ref)) \
	X(const char *, git_repository_commondir, (const git_repository *repo), (repo)) \
	X(int, git_repository_odb, (git_odb **out, git_repository *repo), (out, repo)) \
	X(int, git_odb_read, (git_odb_object **out, git_odb *db, const git_oid *id), (out, db, id)) \
	X(git_object_t, git_odb_object_type, (git_odb_object *object), (object)) \
	X(size_t, git_odb_object_size, (git_odb_object *object), (object)) \
	X(const void *, git_odb_object_data, (git_odb_object *object), (object)) \
	XV(void, git_odb_object_free, (git_odb_object *object), (object)) \
	XV(void, git_odb_free, (git_odb *db), (db)) \
	X(int, git_diff_buffers, (const void *old_buffer, size_t old_len, const char *old_as_path, const void *new_buffer, size_t new_len, const char *new_as_path, const git_diff_options *options, git_diff_file_cb file_cb, git_diff_binary_cb binary_cb, git_diff_hunk_cb hunk_cb, git_diff_line_cb line_cb, void *payload), (old_buffer, old_len, old_as_path, new_buffer, new_len, new_as_path, options, file_cb, binary_cb, hunk_cb, line_cb, payload)) \
	X(int, git_worktree_add_options_init, (git_worktree_add_options *opts, unsigned int version), (opts, version)) \
	X(int, git_worktree_add, (git_worktree **out, git_repository *repo, const char *name, const char *path, const git_worktree_add_options *opts), (out, repo, name, path, opts)) \
	X(int, git_worktree_lookup, (git_worktree **out, git_repository *repo, const char *name), (out, repo, name)) \
	X(int, git_worktree_prune_options_init, (git_worktree_prune_options *opts, unsigned int version), (opts, version)) \
	X(int, git_worktree_prune, (git_worktree *wt, git_worktree_prune_options *opts), (wt, opts)) \
	XV(void, git_worktree_free, (git_worktree *wt), (wt)) \
	X(int, git_branch_create, (git_reference **out, git_repository *repo, const char *branch_name, const git_commit *target, int force), (out, repo, branch_name, target, force)) \
	X(int, git_reference_delete, (git_reference *ref), (ref)) \
	X(int, git_repository_set_head_detached, (git_repository *repo, const git_oid *committish), (repo, committish)) \
	X(int, git_repository_init, (git_repository **out, const char *path, unsigned int is_bare), (out, path, is_bare)) \
	X(int, git_repository_index, (git_index **out, git_repository *repo), (out, repo)) \
	X(int, git_index_add_all, (git_index *index, const git_strarray *pathspec, unsigned int flags, git_index_matched_path_cb callback, void *payload), (index, pathspec, flags, callback, payload)) \
	X(int, git_index_write, (git_index *index), (index)) \
	X(int, git_index_write_tree, (git_oid *out, git_index *index), (out, index)) \
	XV(void, git_index_free, (git_index *index), (index)) \
	X(int, git_signature_new, (git_signature **out, const char *name, const char *email, git_time_t time, int offset), (out, name, email, time, offset)) \
	XV(void, git_signature_free, (git_signature *sig), (sig)) \
	X(int, git_commit_create, (git_oid *id, git_repository *repo, const char *update_ref, const git_signature *author, const git_signature *committer, const char *message_encoding, const char *message, const git_tree *tree, size_t parent_count, const git_commit *parents[]), (id, repo, update_ref, author, committer, message_encoding, message, tree, parent_count, parents)) \
	X(int, git_tree_entry_bypath, (git_tree_entry **out, const git_tree *root, const char *path), (out, root, path)) \
	XV(void, git_tree_entry_free, (git_tree_entry *entry), (entry)) \
	X(const git_oid *, git_tree_entry_id, (const git_tree_entry *entry), (entry)) \
	X(int, git_diff_to_buf, (git_buf *out, git_diff *diff, git_diff_format_t format), (out, diff, format)) \
	XV(void, git_buf_dispose, (git_buf *buffer), (buffer)) \
	X(int, git_repository_config_snapshot, (git_config **out, git_repository *repo), (out, repo)) \
	X(int, git_config_get_string, (const char **out, const git_config *cfg, const char *name), (out, cfg, name)) \
	XV(void, git_config_free, (git_config *cfg), (cfg)) \
	X(int, git_config_iterator_new, (git_config_iterator **out, const git_config *cfg), (out, cfg)) \
	X(int, git_config_next, (git_config_entry **entry, git_config_iterator *iter), (entry, iter)) \
	XV(void, git_config_iterator_free, (git_config_iterator *iter), (iter)) \
	X(int, git_config_parse_bool, (int *out, const char *value), (out, value)) \
	X(int, git_index_add, (git_index *index, const git_index_entry *source_entry), (index, source_entry)) \
	X(int, git_index_clear, (git_index *index), (index)) \
	X(int, git_odb_open_wstream, (git_odb_stream **out, git_odb *db, git_object_size_t size, git_object_t type), (out, db, size, type)) \
	X(int, git_odb_stream_write, (git_odb_stream *stream, const char *buffer, size_t len), (stream, buffer, len)) \
	X(int, git_odb_stream_finalize_write, (git_oid *out, git_odb_stream *stream), (out, stream)) \
	XV(void, git_odb_stream_free, (git_odb_stream *stream), (stream)) \
	X(int, git_odb_write, (git_oid *out, git_odb *odb, const void *data, size_t len, git_object_t type), (out, odb, data, len, type)) \
	X(int, git_ignore_path_is_ignored, (int *ignored, git_repository *repo, const char *path), (ignored, repo, path)) \
	X(int, git_status_options_init, (git_status_options *opts, unsigned int version), (opts, version)) \
	X(int, git_status_list_new, (git_status_list **out, git_repository *repo, const git_status_options *opts), (out, repo, opts)) \
	X(size_t, git_status_list_entrycount, (git_status_list *statuslist), (statuslist)) \
	X(const git_status_entry *, git_status_byindex, (git_status_list *statuslist, size_t idx), (statuslist, idx)) \
	XV(void, git_status_list_free, (git_status_list *statuslist), (statuslist)) \
	X(int, git_odb_hash, (git_oid *out, const void *data, size_t len, git_object_t type), (out, data, len, type)) \
	X(const char *, git_object_type2string, (git_object_t type), (type)) \
	X(char *, git_oid_tostr, (char *out, size_t n, const git_oid *id), (out, n, id)) \
	XV(void, git_reference_free, (git_reference *ref), (ref)) \
	X(int, git_reference_name_to_id, (git_oid *out, git_repository *repo, const char *name), (out, repo, name)) \
	X(int, git_signature_default, (git_signature **out, git_repository *repo), (out, repo)) \
	X(int, git_signature_now, (git_signature **out, const char *name, const char *email), (out, name, email)) \
	X(int, git_stash_save, (git_oid *out, git_repository *repo, const git_signature *stasher, const char *message, uint32_t flags), (out, repo, stasher, message, flags)) \
	X(int, git_revwalk_new, (git_revwalk **out, git_repository *repo), (out, repo)) \
	X(int, git_revwalk_push, (git_revwalk *walk, const git_oid *id), (walk, id)) \
	X(int, git_revwalk_hide, (git_revwalk *walk, const git_oid *id), (walk, id)) \
	X(int, git_revwalk_next, (git_oid *out, git_revwalk *walk), (out, walk)) \
	XV(void, git_revwalk_free, (git_revwalk *walk), (walk)) \
	X(int, git_repository_set_head, (git_repository *repo, const char *refname), (repo, refname)) \
	X(int, git_checkout_options_init, (git_checkout_options *opts, unsigned int version), (opts, version)) \
	X(int, git_checkout_tree, (git_repository *repo, const git_object *treeish, const git_checkout_options *opts), (repo, treeish, opts)) \
	X(int, git_blob_lookup, (git_blob **blob, git_repository *repo, const git_oid *id), (blob, repo, id)) \
	XV(void, git_blob_free, (git_blob *blob), (blob)) \
	X(const void *, git_blob_rawcontent, (const git_blob *blob), (blob)) \
	X(git_object_size_t, git_blob_rawsize, (const git_blob *blob), (blob)) \
	X(int, git_diff_blobs, (const git_blob *old_blob, const char *old_as_path, const git_blob *new_blob, const char *new_as_path, const git_diff_options *options, git_diff_file_cb file_cb, git_diff_binary_cb binary_cb, git_diff_hunk_cb hunk_cb, git_diff_line_cb line_cb, void *payload), (old_blob, old_as_path, new_blob, new_as_path, options, file_cb, binary_cb, hunk_cb, line_cb, payload)) \
	X(int, git_odb_init_backend, (git_odb_backend *backend, unsigned int version), (backend, version)) \
	X(void *, git_odb_backend_data_alloc, (git_odb_backend *backend, size_t len), (backend, len)) \
	X(int, git_odb_add_backend, (git_odb *odb, git_odb_backend *backend, int priority), (odb, backend, priority)) \
	X(int, git_graph_descendant_of, (git_repository *repo, const git_oid *commit, const git_oid *ancestor), (repo, commit, ancestor))

/* Loads libgit2 (once) and initialises it. 0, or RTK_EXIT_FAILURE naming the package to install. */
int git2api_load(void);

/*
 * Tunes libgit2 for walking a long history: no re-hashing of every object read
 * (GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION; git does not check on read either, and it was a third
 * of a walk's time). Raising libgit2's object cache limits instead made a walk slower and four
 * times bigger. Call after git2api_load(); git_libgit2_opts is variadic, so it has no stub.
 */
void git2api_tune_for_history(void);

/*
 * Stops libgit2 from reading back every object an index entry or a tree names before adding it
 * (GIT_OPT_ENABLE_STRICT_OBJECT_CREATION): right for a caller that has just written those objects
 * itself (run-plan's sandbox baseline: two reads of every file's blob otherwise). Process-wide.
 */
void git2api_trust_new_objects(void);

/* libgit2's last error message, or "unknown error". */
const char *git2api_error(void);

#endif
