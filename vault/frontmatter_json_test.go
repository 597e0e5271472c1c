package vault

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestGetNonStringKeys(t *testing.T) {
	fm := mustFM(t, "meta: {1: a, true: b, null: c, 1.5: d, 2024-03-01: e, nested: [{2: x}], n: .nan, i: -.inf}\n")
	got, ok := fm.Get("meta")
	if !ok {
		t.Fatal("meta missing")
	}
	want := map[string]any{
		"1": "a", "true": "b", "null": "c", "1.5": "d", "2024-03-01": "e",
		"nested": []any{map[string]any{"2": "x"}},
		"n":      ".nan", "i": "-.inf",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %#v\nwant %#v", got, want)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Errorf("not JSON-encodable: %v", err)
	}
}

func TestJSONValue(t *testing.T) {
	in := map[any]any{
		1: "int", 1.0: "float", // same text: the first type in sorted order wins
		true: "b", "true": "s", // a string key wins over a converted one
		nil: "n",
		time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC): []any{time.Date(2024, 3, 1, 10, 0, 0, 5, time.FixedZone("x", 3600))},
		"inf": math.Inf(1),
	}
	want := map[string]any{
		"1": "float", "true": "s", "null": "n",
		"2024-03-01T00:00:00Z": []any{"2024-03-01T09:00:00.000000005Z"},
		"inf":                  ".inf",
	}
	for range 20 { // map order must not matter
		if got := JSONValue(in); !reflect.DeepEqual(got, want) {
			t.Fatalf("JSONValue = %#v\nwant %#v", got, want)
		}
	}
	// The input is not modified.
	m := map[string]any{"a": map[any]any{1: "x"}}
	JSONValue(m)
	if _, ok := m["a"].(map[any]any); !ok {
		t.Error("JSONValue modified its argument")
	}
	// Ordinary values pass through unchanged.
	for _, v := range []any{"s", 1, int64(2), 1.5, true, nil} {
		if got := JSONValue(v); got != v {
			t.Errorf("JSONValue(%#v) = %#v", v, got)
		}
	}
}
