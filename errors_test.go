package noema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/noema-mem/noema"
)

func TestErrorWrapsCause(t *testing.T) {
	cause := fmt.Errorf("open /secret/path: %w", fs.ErrNotExist)
	err := fmt.Errorf("reading note: %w", noema.WrapError(cause, noema.ENOTFOUND, "note %q not found", "a.md"))

	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("errors.Is does not see the cause through *noema.Error")
	}
	var pe *noema.Error
	if !errors.As(err, &pe) || pe.Err != cause {
		t.Fatalf("errors.As: %v, cause %v", pe, pe.Err)
	}
	if got, want := noema.ErrorCode(err), noema.ENOTFOUND; got != want {
		t.Errorf("ErrorCode = %q, want %q", got, want)
	}
	if got, want := noema.ErrorMessage(err), `note "a.md" not found`; got != want {
		t.Errorf("ErrorMessage = %q, want %q", got, want)
	}
	if got, want := pe.Error(), `not_found: note "a.md" not found`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	// The cause never reaches a caller: the JSON encoding is unchanged.
	b, err2 := json.Marshal(map[string]any{"error": pe})
	if err2 != nil {
		t.Fatal(err2)
	}
	if got, want := string(b), `{"error":{"code":"not_found","message":"note \"a.md\" not found"}}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}

	// Without a cause, Unwrap is nil.
	if errors.Unwrap(noema.Errorf(noema.EINVALID, "x")) != nil {
		t.Error("Errorf has a cause")
	}
}

// TestNoSpaceCode: a full disk has its own stable code, also when the
// ENOSPC comes uncoded from below.
func TestNoSpaceCode(t *testing.T) {
	if !noema.IsCode("no_space") || noema.ENOSPACE != "no_space" {
		t.Fatal("no_space is not a stable code")
	}
	err := fmt.Errorf("write journal: %w", &fs.PathError{Op: "write", Path: "/v/.noema/j", Err: syscall.ENOSPC})
	if got := noema.ErrorCode(err); got != noema.ENOSPACE {
		t.Errorf("ErrorCode(ENOSPC) = %q, want no_space", got)
	}
	if got := noema.ErrorMessage(err); strings.Contains(got, "/v/") || !strings.Contains(got, "no space") {
		t.Errorf("ErrorMessage(ENOSPC) = %q", got)
	}
}
