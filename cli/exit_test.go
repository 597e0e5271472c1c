package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
)

// TestExitStatusByCode: the codes a script acts on have exit statuses of
// their own: address_in_use 3, no_space 4 (a full disk was exit 1 with
// internal).
func TestExitStatusByCode(t *testing.T) {
	for _, c := range []struct {
		code string
		want int
	}{
		{noema.EADDRINUSE, ExitAddrInUse},
		{noema.ENOSPACE, ExitNoSpace},
		{noema.ENOTFOUND, ExitError},
	} {
		var out, errb bytes.Buffer
		cl := &CLI{Stdout: &out, Stderr: &errb}
		if got := cl.fail(noema.Errorf(c.code, "x"), nil); got != c.want || !strings.Contains(errb.String(), c.code+": x") {
			t.Errorf("%s: exit %d (%q), want %d", c.code, got, errb.String(), c.want)
		}
	}
	if ExitNoSpace != 4 {
		t.Errorf("ExitNoSpace = %d: exit statuses are a contract", ExitNoSpace)
	}
}
