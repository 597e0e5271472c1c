package vault

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/notepath"
)

func TestKey(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Gradient_Checkpointing", "gradient checkpointing"},
		{"gradient-checkpointing", "gradient checkpointing"},
		{"  gradient \t  checkpointing  ", "gradient checkpointing"},
		{"Gradient__--  Checkpointing", "gradient checkpointing"},
		{"-_ leading and trailing _-", "leading and trailing"},
		{"C++", "c++"},
		{"C#", "c#"},
		{"", ""},
		{"   ", ""},
		{"___", ""},
		{"Straße", "strasse"}, // full case folding
		{"STRASSE", "strasse"},
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ"}, // final sigma folds like sigma
		{"Ｆｕｌｌｗｉｄｔｈ", "fullwidth"}, // NFKC
		{"ﬁle", "file"},        // ligature, NFKC
		{"Cafe\u0301", "café"}, // combining accent composes
		{"Café", "café"},
		{"日本語のメモ", "日本語のメモ"},
		{"日本語\u3000メモ", "日本語 メモ"},             // ideographic space
		{"non\u00a0breaking", "non breaking"}, // NBSP is a space
		{"en–dash", "en–dash"},                // other dashes are kept
		{"İstanbul", "i̇stanbul"},
		{"MiXeD ascii_Case", "mixed ascii case"},
	}
	for _, tt := range tests {
		if got := Key(tt.in); got != tt.want {
			t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeyIdempotent(t *testing.T) {
	for _, s := range []string{"Gradient_Checkpointing", "Straße  Ａ", "ΣΊΣΥΦΟΣ", "İstanbul", "ﬁ-le", "\xff bad utf8"} {
		k := Key(s)
		if Key(k) != k {
			t.Errorf("Key(Key(%q)) = %q, want %q", s, Key(k), k)
		}
	}
}

func TestSlug(t *testing.T) {
	long := strings.Repeat("abcdefghij ", 30) // 330 bytes
	longJa := strings.Repeat("日本語", 100)      // 900 bytes
	tests := []struct {
		in, want string
	}{
		{"Hello World", "hello-world"},
		{"日本語のメモ", "日本語のメモ"},
		{"Café Déjà vu", "café-déjà-vu"},
		{"Cafe\u0301", "café"}, // decomposed input composes
		{"  Gradient_Checkpointing: a (short) intro!  ", "gradient-checkpointing-a-short-intro"},
		{`a<b>c:d"e/f\g|h?i*j`, "a-b-c-d-e-f-g-h-i-j"},
		{"tab\tnew\nline\x00nul", "tab-new-line-nul"},
		{"v1.2.3", "v1-2-3"},
		{"🚀 Launch 🚀 plan", "launch-plan"},
		{"🚀🔥", "untitled"},
		{"", "untitled"},
		{"---", "untitled"},
		{"CON", "con_"},
		{"nul", "nul_"},
		{"Com1", "com1_"},
		{"LPT9", "lpt9_"},
		{"aux", "aux_"},
		{"con.txt", "con-txt"}, // not reserved once the dot is gone
		{"console", "console"},
		{"COM10", "com10"},
		{"Ｆｕｌｌｗｉｄｔｈ ①", "fullwidth-1"},
		{"हिन्दी", "हिन्दी"}, // combining marks kept
		{"Ünïcödé ÀÉÎ", "ünïcödé-àéî"},
		{"Привет, мир", "привет-мир"},
		{"a  --  b", "a-b"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	for _, in := range []string{long, longJa, strings.Repeat("é", 300), strings.Repeat("a", 300)} {
		got := Slug(in)
		if len(got) > MaxSlugBytes || !utf8.ValidString(got) || strings.HasSuffix(got, "-") || got == "" {
			t.Errorf("Slug(%d-byte title) = %q (%d bytes): want valid UTF-8, ≤ %d bytes, no trailing '-'", len(in), got, len(got), MaxSlugBytes)
		}
	}
	if got := Slug(long); !strings.HasPrefix(got, "abcdefghij-abcdefghij-") {
		t.Errorf("Slug(long) = %q", got)
	}
	if got := Slug(longJa); got != strings.Repeat("日本語", 11) { // 99 bytes
		t.Errorf("Slug(longJa) = %q", got)
	}
}

func TestSlugPortable(t *testing.T) {
	// Whatever the input, a slug is a safe file name on every OS.
	inputs := []string{"..", ".", "a.", " a ", "a/../b", "C:\\x", "\x00", "\xff\xfe", "PRN.md", "ａｕｘ"}
	for _, in := range inputs {
		s := Slug(in)
		if s == "" || strings.ContainsAny(s, `<>:"/\|?*. `) || notepath.WindowsReserved(s) || len(s) > MaxSlugBytes {
			t.Errorf("Slug(%q) = %q: not a portable file name", in, s)
		}
	}
}

func TestFileName(t *testing.T) {
	for _, c := range []struct{ title, want string }{
		{"Garbage Collection", "Garbage Collection"},
		{"  spaced   out\ttitle ", "spaced out title"},
		{"日本語のメモ", "日本語のメモ"},
		{"Café Déjà vu", "Café Déjà vu"},
		{"TCP/IP: a primer?", "TCP-IP- a primer-"},
		{`a\b*c"d<e>f|g#h^i[j]k`, "a-b-c-d-e-f-g-h-i-j-k"},
		{"C#", "C-"},
		{".hidden", "hidden"},
		{"trailing dots...", "trailing dots"},
		{"con", "con_"},
		{"COM1", "COM1_"},
		{"", "Untitled"},
		{"???", "---"},
		{"...", "Untitled"},
		{"line\nbreak", "line break"},
		{"ctl\x01char", "ctl-char"},
		{strings.Repeat("é", 150), strings.Repeat("é", 100)},
	} {
		got := FileName(c.title)
		if got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.title, got, c.want)
		}
		if err := CheckPortableName(got + ".md"); err != nil {
			t.Errorf("FileName(%q) = %q is not portable: %v", c.title, got, err)
		}
	}
	if got := NumberedName("a/", "Note", 1); got != "a/Note.md" {
		t.Errorf("NumberedName 1 = %q", got)
	}
	if got := NumberedName("", "Note", 3); got != "Note 3.md" {
		t.Errorf("NumberedName 3 = %q", got)
	}
}

func TestIsNumberedName(t *testing.T) {
	for _, tt := range []struct {
		rel, folder, stem string
		want              bool
	}{
		{"go/Mutex.md", "go/", "Mutex", true},
		{"go/Mutex 2.md", "go/", "Mutex", true},
		{"go/Mutex 12.md", "go/", "Mutex", true},
		{"go/mutex.md", "go/", "Mutex", false},
		{"go/Mutex 2b.md", "go/", "Mutex", false},
		{"go/Mutex .md", "go/", "Mutex", false},
		{"go/Mutexes.md", "go/", "Mutex", false},
		{"Mutex.md", "go/", "Mutex", false},
		{"go/Mutex", "go/", "Mutex", false},
	} {
		if got := IsNumberedName(tt.rel, tt.folder, tt.stem); got != tt.want {
			t.Errorf("IsNumberedName(%q, %q, %q) = %v, want %v", tt.rel, tt.folder, tt.stem, got, tt.want)
		}
	}
	for n := 1; n <= 3; n++ { // the inverse of NumberedName
		if rel := NumberedName("a/", "B c", n); !IsNumberedName(rel, "a/", "B c") {
			t.Errorf("IsNumberedName(%q) = false", rel)
		}
	}
}
