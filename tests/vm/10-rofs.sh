# kernel: base
# rust_rofs: the in-memory sample shows exactly what samples/rust/rust_rofs.rs
# defines; lookups of missing names fail with ENOENT, writes with EROFS;
# mount cycles leak no inodes and the module unloads.
. /tests/lib.sh
modprobe rust_rofs
grep -qw rust-fs /proc/filesystems || fail "rust-fs not in /proc/filesystems"
before=$(slab_objs rust-fs)
m=/mnt/rofs
mkdir -p $m
mount -t rust-fs none $m

# Directory listings (readdir), including . and ..
expect_eq "ls -a /" "$(ls -a1 $m | tr '\n' ' ')" ". .. link subdir test.txt xattr.txt "
expect_eq "ls -a /subdir" "$(ls -a1 $m/subdir | tr '\n' ' ')" ". .. nested.txt "
# Inode numbers (ls stats each name; the root's .. is the mount point's parent)
up=$(stat -c %i /mnt)
expect_eq "ls -ai /" "$(ls -ai1 $m | awk '{print $1 ":" $2}' | tr '\n' ' ')" \
	"1:. $up:.. 4:link 3:subdir 2:test.txt 5:xattr.txt "
expect_eq "ls -ai /subdir" "$(ls -ai1 $m/subdir | awk '{print $1 ":" $2}' | tr '\n' ' ')" \
	"3:. 1:.. 6:nested.txt "

# stat of every inode: name, ino, type, mode, owner, size, links, mtime
st() { stat -c '%n|%i|%F|%a|%u|%g|%s|%h|%Y|%X|%Z' "$@"; }
expect_eq "stat root" "$(st $m)" "$m|1|directory|555|0|0|5|3|0|0|0"
expect_eq "stat test.txt" "$(st $m/test.txt)" "$m/test.txt|2|regular file|444|0|0|6|1|0|0|0"
expect_eq "stat subdir" "$(st $m/subdir)" "$m/subdir|3|directory|555|0|0|1|2|0|0|0"
expect_eq "stat link" "$(st $m/link)" "$m/link|4|symbolic link|777|0|0|8|1|0|0|0"
expect_eq "stat xattr.txt" "$(st $m/xattr.txt)" "$m/xattr.txt|5|regular file|444|0|0|26|1|0|0|0"
expect_eq "stat nested" "$(st $m/subdir/nested.txt)" "$m/subdir/nested.txt|6|regular file|444|0|0|10|1|0|0|0"

# Contents (read_folio), symlink (get_link), following it
expect_eq "cat test.txt" "$(cat $m/test.txt | od -An -c | tr -s ' ')" " h e l l o \\n"
expect_eq "cat nested" "$(cat $m/subdir/nested.txt)" "in subdir"
expect_eq "readlink" "$(readlink $m/link)" "test.txt"
expect_eq "cat via link" "$(cat $m/link)" "hello"
expect_eq "dd skip past EOF" "$(dd if=$m/test.txt bs=1 skip=100 2>/dev/null | wc -c)" "0"

# Extended attributes (xattr handler + listxattr)
expect_eq "getfattr -d" "$(getfattr --absolute-names -d $m/xattr.txt | grep -v '^#' | grep .)" \
	'user.sample="rust-fs xattr value"'
expect_eq "getfattr -n" "$(getfattr --absolute-names --only-values -n user.sample $m/xattr.txt)" \
	"rust-fs xattr value"
out=$(getfattr --absolute-names -n user.missing $m/xattr.txt 2>&1 || true)
case "$out" in *"No such attribute"*) ;; *) fail "missing xattr: $out" ;; esac
out=$(setfattr -n user.new -v 1 $m/xattr.txt 2>&1 || true)
case "$out" in *"Read-only file system"*) ;; *) fail "setfattr: $out" ;; esac

# statfs
expect_eq "stat -f" "$(stat -f -c '%t|%l|%S|%c' $m)" "52555354|255|4096|6"

# Missing names: ENOENT
out=$(ls $m/missing 2>&1 || true)
case "$out" in *"No such file or directory"*) ;; *) fail "ls missing: $out" ;; esac
out=$(cat $m/subdir/missing 2>&1 || true)
case "$out" in *"No such file or directory"*) ;; *) fail "cat missing: $out" ;; esac

# Writes: EROFS
for cmd in "touch $m/new" "mkdir $m/newdir" "sh -c 'echo x > $m/test.txt'" \
	"sh -c 'echo x > $m/new2'" "rm -f $m/test.txt" "ln -s x $m/newlink" "mv $m/test.txt $m/t2"; do
	out=$(eval "$cmd" 2>&1 || true)
	case "$out" in *"Read-only file system"*) ;; *) fail "$cmd: $out" ;; esac
done
umount $m

# Remount cycles leak no inodes: the inode cache is back to its count from
# before the first mount (inodes are freed after an RCU grace period).
i=0
while [ $i -lt 100 ]; do
	mount -t rust-fs none $m
	ls -la $m $m/subdir > /dev/null
	cat $m/test.txt $m/link $m/subdir/nested.txt > /dev/null
	umount $m
	i=$((i + 1))
done
after=$(slab_settle rust-fs "$before")
echo "rust-fs inode cache objects: before=$before after=$after"
expect_eq "inode cache objects after 100 mounts" "$after" "$before"
rmmod rust_rofs
grep -qw rust-fs /proc/filesystems && fail "rust-fs still registered after rmmod"
true
