package noematest

import (
	"encoding/json"
	"testing"
)

// CommandJSON checks a command line run with --json (args, without it): it
// fails the test unless the exit status code is want, and decodes stdout
// into out when out is not nil.
func CommandJSON(tb testing.TB, args []string, stdout string, code, want int, out any) {
	tb.Helper()
	if code != want {
		tb.Fatalf("%v: exit %d, want %d; stdout: %s", args, code, want, stdout)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(stdout), out); err != nil {
			tb.Fatalf("%v: decode %q: %v", args, stdout, err)
		}
	}
}
