//go:build linux || android || openbsd || dragonfly || solaris || illumos

package indexer

import "syscall"

func statCtime(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctim.Unix() }
