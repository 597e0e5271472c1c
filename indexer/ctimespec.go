//go:build darwin || ios || freebsd || netbsd

package indexer

import "syscall"

func statCtime(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctimespec.Unix() }
