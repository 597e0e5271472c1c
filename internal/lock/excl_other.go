//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package lock

func tryAcquire(path string) (*Lock, error) { return exclAcquire(path) }

func holder(path string) (Info, error) { return exclHolder(path) }
