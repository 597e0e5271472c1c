package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/notepath"
	"golang.org/x/text/unicode/norm"
)

// MaxNameBytes is the longest file or folder name noema creates: the
// limit of the common file systems (ext4, APFS, NTFS in UTF-16 units, …).
const MaxNameBytes = 255

// CheckPortableName reports, as a noema.EINVALID error, why the
// vault-relative path rel (forward slashes) should not be created by noema
// because some file system or OS could not hold it, so that a vault stays
// portable between Linux, macOS and Windows. Every element of rel is
// checked; it refuses elements that
//
//   - contain a control character (C0 such as NUL, TAB, LF and CR, DEL
//     U+007F, or C1 U+0080–U+009F) or invalid UTF-8;
//   - contain a character Windows forbids in names: < > : " | ? * or '\';
//   - are a Windows device name (CON, PRN, AUX, NUL, COM0–9, LPT0–9,
//     CONIN$, CONOUT$), in any case and with any extension ("con.md");
//   - end in a space or a '.';
//   - are longer than [MaxNameBytes] bytes.
//
// It does not check what [Vault.Rel] checks (absolute paths, "..",
// dot-files). Noema applies it to the names it creates — a new note, a
// move's target, a new folder — and never to names that exist: an oddly
// named file made by another tool stays readable and writable.
func CheckPortableName(rel string) error {
	for _, e := range strings.Split(rel, "/") {
		if e == "" || e == "." {
			continue
		}
		if err := checkPortableElem(e); err != nil {
			return noema.Errorf(noema.EINVALID, "invalid name %q: %s", rel, err)
		}
	}
	return nil
}

// checkPortableElem checks one element of a path (see CheckPortableName);
// the error's text is the reason, for a message.
func checkPortableElem(e string) error {
	if len(e) > MaxNameBytes {
		return fmt.Errorf("name too long (%d bytes; the limit is %d)", len(e), MaxNameBytes)
	}
	if !utf8.ValidString(e) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range e {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return fmt.Errorf("contains the control character %U", r)
		case strings.ContainsRune(`<>:"|?*\`, r):
			return fmt.Errorf("contains %q, which Windows does not allow in names", r)
		}
	}
	switch last := e[len(e)-1]; last {
	case ' ', '.':
		return fmt.Errorf("%q ends in %q, which Windows drops", e, last)
	}
	if notepath.WindowsReserved(e) {
		return fmt.Errorf("%q is a reserved device name on Windows", e)
	}
	return nil
}

// checkNew checks, with CheckPortableName's rules, the elements of the
// clean vault-relative path r that do not exist yet and would be created:
// the file name itself, and every folder from the first missing one on.
// Existing folders are not checked, whatever their names.
func checkNew(root *os.Root, r string) error {
	elems := strings.Split(r, "/")
	first := len(elems) - 1 // the file name is always new
	for i := range len(elems) - 1 {
		if _, err := root.Lstat(filepath.FromSlash(strings.Join(elems[:i+1], "/"))); err != nil {
			// missing, or an error (a name too long, …) the check explains
			first = i
			break
		}
	}
	for _, e := range elems[first:] {
		if err := checkPortableElem(e); err != nil {
			return noema.Errorf(noema.EINVALID, "invalid name %q: %s", r, err)
		}
	}
	return nil
}

// MaxTitleNameBytes bounds the file-name stem [FileName] makes from a title,
// leaving room under [MaxNameBytes] for a de-duplicating " 12" and ".md".
const MaxTitleNameBytes = 200

// forbiddenInNames are the characters Obsidian refuses in a note's file name
// (some because no file system allows them, some because they would break
// its link syntax: # heading, ^ block, [ ] link, | display).
const forbiddenInNames = `\/:*?"<>|#^[]`

// FileName returns the file-name stem of a note titled title, so that the
// file is named as Obsidian names it and [[title]] resolves to it there too:
//
//   - the title as written (NFC-normalized, case and Unicode kept);
//   - each character Obsidian or a file system refuses — \ / : * ? " < > |
//     # ^ [ ] and control characters — becomes '-', and runs of white space
//     become one space;
//   - leading dots (Obsidian hides dot-files) and trailing dots and spaces
//     (Windows drops them) are trimmed;
//   - cut to at most [MaxTitleNameBytes] bytes on a rune boundary;
//   - never empty ("Untitled") and never a Windows device name ("CON"
//     becomes "CON_").
func FileName(title string) string {
	title = norm.NFC.String(title)
	var b strings.Builder
	b.Grow(len(title))
	space := false
	for _, r := range title {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || strings.ContainsRune(forbiddenInNames, r):
			r = '-'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > MaxTitleNameBytes {
			break
		}
		b.WriteRune(r)
	}
	name := strings.TrimRight(strings.TrimLeft(b.String(), "."), ". ")
	if name == "" {
		name = "Untitled"
	}
	if notepath.WindowsReserved(name) {
		name += "_"
	}
	return name
}

// NumberedName is the n-th candidate file name for stem in folder (which
// is "" or ends in '/'): "stem.md", then "stem 2.md", "stem 3.md", … — the
// way Obsidian numbers a new note whose name is taken.
func NumberedName(folder, stem string, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s%s %d.md", folder, stem, n)
	}
	return folder + stem + ".md"
}

// IsNumberedName reports whether rel is one of NumberedName's candidates
// for stem in folder, for some n ≥ 1, compared exactly (as the file
// system compares names).
func IsNumberedName(rel, folder, stem string) bool {
	base, ok := strings.CutSuffix(rel, ".md")
	if !ok {
		return false
	}
	if base, ok = strings.CutPrefix(base, folder+stem); !ok {
		return false
	}
	if base == "" {
		return true
	}
	n, ok := strings.CutPrefix(base, " ")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}
