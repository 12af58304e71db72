// SPDX-License-Identifier: GPL-2.0

/*
 * Helpers for the Rust VFS bindings (rust/kernel/fs/): wrappers of static
 * inline functions of the super block, inode, dentry, folio and buffer head
 * APIs.
 */

#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fileattr.h>
#include <linux/fs.h>
#include <linux/fs_parser.h>
#include <linux/highmem.h>
#include <linux/mbcache.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/posix_acl.h>
#include <linux/security.h>
#include <linux/workqueue.h>

__rust_helper void rust_helper_i_uid_write(struct inode *inode, uid_t uid)
{
	i_uid_write(inode, uid);
}

__rust_helper void rust_helper_i_gid_write(struct inode *inode, gid_t gid)
{
	i_gid_write(inode, gid);
}

__rust_helper uid_t rust_helper_i_uid_read(const struct inode *inode)
{
	return i_uid_read(inode);
}

__rust_helper gid_t rust_helper_i_gid_read(const struct inode *inode)
{
	return i_gid_read(inode);
}

__rust_helper void rust_helper_mark_inode_dirty(struct inode *inode)
{
	mark_inode_dirty(inode);
}

/* i_nlink is in an anonymous union; writers use set_nlink() and friends. */
__rust_helper unsigned int rust_helper_inode_nlink(const struct inode *inode)
{
	return READ_ONCE(inode->i_nlink);
}

__rust_helper void rust_helper_mapping_set_large_folios(struct address_space *m)
{
	mapping_set_large_folios(m);
}

__rust_helper void rust_helper_set_delayed_call(struct delayed_call *call,
						void (*fn)(void *), void *arg)
{
	set_delayed_call(call, fn, arg);
}

__rust_helper struct dentry *rust_helper_dget(struct dentry *dentry)
{
	return dget(dentry);
}

__rust_helper void rust_helper_folio_get(struct folio *folio)
{
	folio_get(folio);
}

__rust_helper void rust_helper_folio_put(struct folio *folio)
{
	folio_put(folio);
}

__rust_helper size_t rust_helper_folio_size(const struct folio *folio)
{
	return folio_size(folio);
}

__rust_helper loff_t rust_helper_folio_pos(const struct folio *folio)
{
	return folio_pos(folio);
}

__rust_helper void rust_helper_folio_mark_uptodate(struct folio *folio)
{
	folio_mark_uptodate(folio);
}

__rust_helper bool rust_helper_folio_test_uptodate(const struct folio *folio)
{
	return folio_test_uptodate(folio);
}

__rust_helper void rust_helper_folio_zero_range(struct folio *folio,
						size_t start, size_t length)
{
	folio_zero_range(folio, start, length);
}

__rust_helper void *rust_helper_kmap_local_folio(struct folio *folio,
						 size_t offset)
{
	return kmap_local_folio(folio, offset);
}

__rust_helper void rust_helper_flush_dcache_folio(struct folio *folio)
{
	flush_dcache_folio(folio);
}

__rust_helper void rust_helper_get_bh(struct buffer_head *bh)
{
	get_bh(bh);
}

__rust_helper void rust_helper_map_bh(struct buffer_head *bh,
				      struct super_block *sb, sector_t block)
{
	map_bh(bh, sb, block);
}

__rust_helper void rust_helper_set_buffer_boundary(struct buffer_head *bh)
{
	set_buffer_boundary(bh);
}

__rust_helper bool rust_helper_buffer_write_io_error(struct buffer_head *bh)
{
	return buffer_write_io_error(bh);
}

__rust_helper void rust_helper_clear_buffer_write_io_error(struct buffer_head *bh)
{
	clear_buffer_write_io_error(bh);
}

__rust_helper bool rust_helper_buffer_uptodate(const struct buffer_head *bh)
{
	return buffer_uptodate(bh);
}

__rust_helper void rust_helper_lock_buffer(struct buffer_head *bh)
{
	lock_buffer(bh);
}

__rust_helper struct buffer_head *rust_helper_sb_getblk(struct super_block *sb,
							sector_t block)
{
	return sb_getblk(sb, block);
}

__rust_helper int rust_helper_bh_read(struct buffer_head *bh, blk_opf_t op_flags)
{
	return bh_read(bh, op_flags);
}

__rust_helper void rust_helper_bforget(struct buffer_head *bh)
{
	bforget(bh);
}

/* The little-endian bit operations of bitmap blocks (asm-generic/bitops/le.h). */
__rust_helper int rust_helper_test_and_set_bit_le(int nr, void *addr)
{
	return test_and_set_bit_le(nr, addr);
}

__rust_helper int rust_helper_test_and_clear_bit_le(int nr, void *addr)
{
	return test_and_clear_bit_le(nr, addr);
}

__rust_helper int rust_helper_test_bit_le(int nr, const void *addr)
{
	return test_bit_le(nr, addr);
}

__rust_helper unsigned long rust_helper_find_next_zero_bit_le(const void *addr,
							      unsigned long size,
							      unsigned long offset)
{
	return find_next_zero_bit_le(addr, size, offset);
}

__rust_helper unsigned long rust_helper_find_next_bit_le(const void *addr,
							 unsigned long size,
							 unsigned long offset)
{
	return find_next_bit_le(addr, size, offset);
}

__rust_helper void rust_helper_set_inode_metadata_writeback(struct inode *inode)
{
	set_inode_metadata_writeback(inode);
}

__rust_helper void rust_helper_set_buffer_new(struct buffer_head *bh)
{
	set_buffer_new(bh);
}

__rust_helper void rust_helper_set_buffer_uptodate(struct buffer_head *bh)
{
	set_buffer_uptodate(bh);
}

__rust_helper unsigned int rust_helper_readahead_count(struct readahead_control *rac)
{
	return readahead_count(rac);
}

__rust_helper loff_t rust_helper_readahead_pos(struct readahead_control *rac)
{
	return readahead_pos(rac);
}

__rust_helper loff_t rust_helper_bdev_nr_bytes(struct block_device *bdev)
{
	return bdev_nr_bytes(bdev);
}

__rust_helper bool rust_helper_folio_test_checked(const struct folio *folio)
{
	return folio_test_checked(folio);
}

__rust_helper void rust_helper_folio_set_checked(struct folio *folio)
{
	folio_set_checked(folio);
}

/* The workqueue on which a Rust file system's inodes are freed. */
__rust_helper struct workqueue_struct *rust_helper_vfs_alloc_free_wq(const char *name)
{
	return alloc_workqueue("%s_free", WQ_UNBOUND | WQ_MEM_RECLAIM, 0, name);
}

__rust_helper void rust_helper_init_rcu_work(struct rcu_work *rwork,
					     work_func_t func)
{
	INIT_RCU_WORK(rwork, func);
}

__rust_helper loff_t rust_helper_i_size_read(const struct inode *inode)
{
	return i_size_read(inode);
}

__rust_helper enum inode_state_flags_enum rust_helper_inode_state_read_once(struct inode *inode)
{
	return inode_state_read_once(inode);
}

__rust_helper void rust_helper_inode_set_fop(struct inode *inode,
					     const struct file_operations *fop)
{
	inode->i_fop = fop;
}

__rust_helper const struct file_operations *rust_helper_inode_fop(const struct inode *inode)
{
	return inode->i_fop;
}

/*
 * ext2_has_free_blocks's test of the caller: whether it may use the blocks
 * reserved for resuid and resgid (ids in the initial user namespace).
 */
__rust_helper bool rust_helper_may_use_reserved_blocks(u32 resuid, u32 resgid)
{
	kuid_t uid = make_kuid(&init_user_ns, resuid);
	kgid_t gid = make_kgid(&init_user_ns, resgid);

	return capable(CAP_SYS_RESOURCE) || uid_eq(uid, current_fsuid()) ||
	       (!gid_eq(gid, GLOBAL_ROOT_GID) && in_group_p(gid));
}

__rust_helper const unsigned char *rust_helper_dentry_name(const struct dentry *dentry,
							   unsigned int *len)
{
	*len = dentry->d_name.len;
	return dentry->d_name.name;
}

/* The name as security_inode_init_security() wants it (d_name is in a union). */
__rust_helper const struct qstr *rust_helper_dentry_qstr(const struct dentry *dentry)
{
	return &dentry->d_name;
}

/* The number of inodes on @sb's list (alive or being evicted). */
__rust_helper size_t rust_helper_sb_inode_count(struct super_block *sb)
{
	size_t n;

	spin_lock(&sb->s_inode_list_lock);
	n = list_count_nodes(&sb->s_inodes);
	spin_unlock(&sb->s_inode_list_lock);
	return n;
}

/* Whether @p is an address of slab memory (where hardened usercopy checks the object's cache). */
__rust_helper bool rust_helper_addr_in_slab(const void *p)
{
	return virt_addr_valid(p) && folio_test_slab(virt_to_folio(p));
}

__rust_helper void rust_helper_inode_set_cached_link(struct inode *inode, char *link, int linklen)
{
	inode_set_cached_link(inode, link, linklen);
}

/* The mapping of a folio, or NULL if it was truncated (READ_ONCE: it may be unlocked). */
__rust_helper struct address_space *rust_helper_folio_mapping_once(struct folio *folio)
{
	return READ_ONCE(folio->mapping);
}

__rust_helper void rust_helper_posix_acl_release(struct posix_acl *acl)
{
	posix_acl_release(acl);
}

/*
 * Sets entry @n of a new @acl (the uid/gid of a named entry is in a union
 * that bindgen cannot name): @id is in the initial user namespace, as file
 * systems store it.
 */
__rust_helper void rust_helper_posix_acl_set_entry(struct posix_acl *acl, unsigned int n,
						   short tag, unsigned short perm, u32 id)
{
	struct posix_acl_entry *e = &acl->a_entries[n];

	e->e_tag = tag;
	e->e_perm = perm;
	if (tag == ACL_GROUP)
		e->e_gid = make_kgid(&init_user_ns, id);
	else if (tag == ACL_USER)
		e->e_uid = make_kuid(&init_user_ns, id);
	else
		e->e_uid = INVALID_UID;
}

/* The members of the anonymous unions of fs_parse_result and fs_parameter. */
__rust_helper unsigned int rust_helper_fs_parse_result_u32(const struct fs_parse_result *r)
{
	return r->uint_32;
}

__rust_helper uid_t rust_helper_fs_parse_result_uid(const struct fs_parse_result *r)
{
	return from_kuid_munged(&init_user_ns, r->uid);
}

__rust_helper gid_t rust_helper_fs_parse_result_gid(const struct fs_parse_result *r)
{
	return from_kgid_munged(&init_user_ns, r->gid);
}

__rust_helper char *rust_helper_fs_param_string(const struct fs_parameter *p)
{
	return p->string;
}

__rust_helper void rust_helper_inode_lock(struct inode *inode)
{
	inode_lock(inode);
}

__rust_helper void rust_helper_inode_unlock(struct inode *inode)
{
	inode_unlock(inode);
}

__rust_helper void rust_helper_inode_lock_shared(struct inode *inode)
{
	inode_lock_shared(inode);
}

__rust_helper void rust_helper_inode_unlock_shared(struct inode *inode)
{
	inode_unlock_shared(inode);
}

/* Truncate of block-mapped files. */
__rust_helper void rust_helper_filemap_invalidate_lock(struct address_space *mapping)
{
	filemap_invalidate_lock(mapping);
}

__rust_helper void rust_helper_filemap_invalidate_unlock(struct address_space *mapping)
{
	filemap_invalidate_unlock(mapping);
}

__rust_helper struct timespec64 rust_helper_inode_set_mtime_to_ts(struct inode *inode,
								  struct timespec64 ts)
{
	return inode_set_mtime_to_ts(inode, ts);
}

__rust_helper void rust_helper_folio_lock(struct folio *folio)
{
	folio_lock(folio);
}

__rust_helper void rust_helper_sb_start_intwrite(struct super_block *sb)
{
	sb_start_intwrite(sb);
}

__rust_helper void rust_helper_sb_end_intwrite(struct super_block *sb)
{
	sb_end_intwrite(sb);
}

__rust_helper int rust_helper_filemap_write_and_wait(struct address_space *mapping)
{
	return filemap_write_and_wait(mapping);
}

__rust_helper void rust_helper_i_size_write(struct inode *inode, loff_t i_size)
{
	i_size_write(inode, i_size);
}

__rust_helper size_t rust_helper_iov_iter_count(const struct iov_iter *i)
{
	return iov_iter_count(i);
}

__rust_helper ssize_t rust_helper_generic_write_sync(struct kiocb *iocb, ssize_t count)
{
	return generic_write_sync(iocb, count);
}

__rust_helper int rust_helper_finish_open_simple(struct file *file, int error)
{
	return finish_open_simple(file, error);
}

__rust_helper struct dentry *rust_helper_file_dentry(const struct file *file)
{
	return file_dentry(file);
}

__rust_helper bool rust_helper_fileattr_has_fsx(const struct file_kattr *fa)
{
	return fileattr_has_fsx(fa);
}

#ifdef CONFIG_FS_MBCACHE
__rust_helper void rust_helper_mb_cache_entry_put(struct mb_cache *cache,
						  struct mb_cache_entry *entry)
{
	mb_cache_entry_put(cache, entry);
}

__rust_helper bool rust_helper_mb_cache_entry_unhashed(struct mb_cache_entry *entry)
{
	return hlist_bl_unhashed(&entry->e_hash_list);
}
#endif

__rust_helper void rust_helper_posix_acl_get_entry(const struct posix_acl *acl, unsigned int n,
						   short *tag, unsigned short *perm, u32 *id)
{
	const struct posix_acl_entry *e = &acl->a_entries[n];

	*tag = e->e_tag;
	*perm = e->e_perm;
	if (e->e_tag == ACL_GROUP)
		*id = from_kgid(&init_user_ns, e->e_gid);
	else if (e->e_tag == ACL_USER)
		*id = from_kuid(&init_user_ns, e->e_uid);
	else
		*id = 0;
}

__rust_helper unsigned int rust_helper_posix_acl_count(const struct posix_acl *acl)
{
	return acl->a_count;
}

#ifndef CONFIG_SECURITY
/* Without security modules, the function is a static inline that returns 0. */
__rust_helper int
rust_helper_security_inode_init_security(struct inode *inode, struct inode *dir,
					 const struct qstr *qstr,
					 const initxattrs initxattrs_fn,
					 void *fs_data)
{
	return security_inode_init_security(inode, dir, qstr, initxattrs_fn,
					    fs_data);
}
#endif
