-- A file is unchanged for sync only when its size, mtime, ctime and inode
-- all match, and its times are safely older than the moment it was last read
-- (verified_ns): the "racy clean" rule git uses. ctime and inode catch
-- rewrites that restore the mtime (touch -r, cp -p, rsync -t); verified_ns
-- catches a rewrite within the file system's timestamp granularity. Rows
-- from older indexes have zeros, so every file is re-read (and, if its
-- content is the same, only touched) once.
ALTER TABLE notes ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notes ADD COLUMN inode INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notes ADD COLUMN verified_ns INTEGER NOT NULL DEFAULT 0;
