package postgres

import (
	"context"
	"testing"

	"github.com/noema-mem/noema"
)

// TestWalkFiles: every live file once, in byte-wise path order, with the
// checksum and size ReadFile gives, its content only when asked for;
// deleted files and other vaults' files are not walked.
func TestWalkFiles(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "work")
	write(t, s, "b.md", "bee", noema.Absent)
	write(t, s, "a/z.md", "", noema.Absent)
	write(t, s, "Été.md", "été", noema.Absent)
	write(t, s, "gone.md", "x", noema.Absent)
	if _, err := s.DeleteFile(ctx, "gone.md", noema.Checksum([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	other, err := s.db.Vault(ctx, "home")
	if err != nil {
		t.Fatal(err)
	}
	write(t, other, "c.md", "home", noema.Absent)
	want := []string{"a/z.md", "b.md", "Été.md"} // byte-wise: 'É' is above ASCII
	for _, withData := range []bool{false, true} {
		var got []string
		err := s.WalkFiles(ctx, withData, func(f *noema.File) error {
			got = append(got, f.Path)
			r, err := s.ReadFile(ctx, f.Path)
			if err != nil {
				return err
			}
			if f.Checksum != r.Checksum || f.Size != r.Size || !f.Modified.Equal(r.Modified) {
				t.Errorf("withData=%v: %s walked as %+v, read as %+v", withData, f.Path, f.FileInfo, r.FileInfo)
			}
			if withData && string(f.Data) != string(r.Data) || !withData && f.Data != nil {
				t.Errorf("withData=%v: %s walked with data %q", withData, f.Path, f.Data)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("withData=%v: walked %q, want %q", withData, got, want)
		}
	}
}
