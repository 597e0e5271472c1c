package sqlite

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/noema-mem/noema/internal/notepath"
)

// TestStatesRecordRoundTrip: a snapshot record gives back the states it
// was made of — extreme numbers, a reindex's read time, any path, hashes
// kept as bytes and as text.
func TestStatesRecordRoundTrip(t *testing.T) {
	list := []NoteState{
		{Path: "a.md", ID: 1, Size: 0, MtimeNS: 0, Hash: ""},
		{Path: "dir/é 図.md", ID: math.MaxInt64, Size: math.MaxInt64, MtimeNS: math.MinInt64,
			File: FileState{CtimeNS: -1, Inode: math.MaxInt64, VerifiedNS: Rederive}, Hash: "sha256:" + fmt.Sprintf("%064x", 12345)},
		{Path: "x\x00y\n.md", ID: 3, Size: 12, MtimeNS: 1_700_000_000_123_456_789, Hash: "sha256:" + fmt.Sprintf("%064X", 12345)},
		{Path: "", ID: -4, Hash: "h"},
		{Path: "b.md", ID: 5, Hash: "sha256:0"},
	}
	for _, l := range [][]NoteState{nil, list} {
		set, ok := decodeStates(encodeStates(statesOf(l)))
		if !ok {
			t.Fatalf("decode of %d states failed", len(l))
		}
		got := set.All()
		want := slices.Clone(l)
		slices.SortFunc(want, func(a, b NoteState) int { return notepath.Compare(a.Path, b.Path) })
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
	rec := encodeStates(statesOf(list))
	for cut := range rec {
		if _, ok := decodeStates(rec[:cut]); ok {
			t.Fatalf("a record cut at %d of %d bytes was read", cut, len(rec))
		}
	}
	if _, ok := decodeStates(append(rec, 0)); ok {
		t.Error("a record with a trailing byte was read")
	}
}

// statesOf is a set of the states in list, in list's order.
func statesOf(list []NoteState) *NoteStateSet {
	set := &NoteStateSet{}
	b := newStateBuilder(set, 0)
	for i := range list {
		b.add(&list[i])
	}
	b.done()
	return set
}

// FuzzDecodeStates: any bytes are refused or read, never a panic, and
// what is read encodes to a record that reads the same.
func FuzzDecodeStates(f *testing.F) {
	f.Add(encodeStates(statesOf([]NoteState{{Path: "a.md", ID: 1, Size: 2, MtimeNS: 3, Hash: "sha256:" + fmt.Sprintf("%064x", 7)}, {Path: "b", Hash: "t"}})))
	f.Add([]byte(statesMagic + "\x01"))
	f.Add([]byte(statesMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, ok := decodeStates(data)
		if !ok {
			return
		}
		list := set.All()
		for i := 1; i < len(list); i++ {
			if notepath.Compare(list[i-1].Path, list[i].Path) > 0 {
				t.Fatalf("states out of the walk's order: %q before %q", list[i-1].Path, list[i].Path)
			}
		}
		again, ok := decodeStates(encodeStates(&set))
		if !ok || (len(list) > 0 && !reflect.DeepEqual(again.All(), list)) {
			t.Fatalf("re-encoded states read back as %+v, %v; want %+v", again.All(), ok, list)
		}
	})
}
