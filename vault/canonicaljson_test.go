package vault_test

import (
	"testing"

	"github.com/noema-mem/noema/vault"
)

func TestCanonicalJSON(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want string
	}{
		// Non-string keys keep their text (they used to be dropped here,
		// while front matter kept them): one normaliser, vault.JSONValue.
		{map[any]any{1: "a", true: "b"}, `{"1":"a","true":"b"}`},
		{map[string]any{"b": 1, "a": []any{"x", map[any]any{2: nil}}}, `{"a":["x",{"2":null}],"b":1}`},
	} {
		if got := vault.CanonicalJSON(tt.in); got != tt.want {
			t.Errorf("CanonicalJSON(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
