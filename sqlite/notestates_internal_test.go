package sqlite

import (
	"fmt"
	"math"
	"reflect"
	"testing"
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
		got, ok := decodeStates(encodeStates(l))
		if !ok {
			t.Fatalf("decode of %d states failed", len(l))
		}
		if len(l) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, l) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, l)
		}
	}
	rec := encodeStates(list)
	for cut := range rec {
		if _, ok := decodeStates(rec[:cut]); ok {
			t.Fatalf("a record cut at %d of %d bytes was read", cut, len(rec))
		}
	}
	if _, ok := decodeStates(append(rec, 0)); ok {
		t.Error("a record with a trailing byte was read")
	}
}

// FuzzDecodeStates: any bytes are refused or read, never a panic, and
// what is read encodes to a record that reads the same.
func FuzzDecodeStates(f *testing.F) {
	f.Add(encodeStates([]NoteState{{Path: "a.md", ID: 1, Size: 2, MtimeNS: 3, Hash: "sha256:" + fmt.Sprintf("%064x", 7)}, {Path: "b", Hash: "t"}}))
	f.Add([]byte(statesMagic + "\x01"))
	f.Add([]byte(statesMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, ok := decodeStates(data)
		if !ok {
			return
		}
		again, ok := decodeStates(encodeStates(list))
		if !ok || (len(list) > 0 && !reflect.DeepEqual(again, list)) {
			t.Fatalf("re-encoded states read back as %+v, %v; want %+v", again, ok, list)
		}
	})
}
