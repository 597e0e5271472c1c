package lock_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/noema-mem/noema/internal/lock"
)

func ExampleTryAcquire() {
	vault, err := os.MkdirTemp("", "vault")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(vault)

	l, err := lock.TryAcquire(lock.Path(vault))
	if err != nil {
		log.Fatal(err)
	}
	// Anyone else — another process, or this one through another open — is refused.
	_, err = lock.TryAcquire(lock.Path(vault))
	fmt.Println(errors.Is(err, lock.ErrHeld))

	l.Release()
	l, err = lock.TryAcquire(lock.Path(vault))
	fmt.Println(err)
	l.Release()
	// Output:
	// true
	// <nil>
}
