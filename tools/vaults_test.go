package tools_test

import (
	"slices"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/tools"
)

func TestPickVault(t *testing.T) {
	vaults := []tools.Vault{{Name: "work"}, {Name: "home"}, {Name: "lab"}}
	all := func(string) bool { return true }
	homeLab := func(n string) bool { return n == "home" || n == "lab" }
	none := func(string) bool { return false }
	for _, s := range []struct {
		Name   string
		Allows func(string) bool
		Ask    string
		Want   string // the vault picked, or the error
	}{
		{"default", all, "", "work"},
		{"named", all, "lab", "lab"},
		{"scoped default is its first", homeLab, "", "home"},
		{"scoped named", homeLab, "lab", "lab"},
		{"out of scope", homeLab, "work", `not_found: no vault named "work" (list_vaults names the vaults you may use)`},
		{"missing", homeLab, "nope", `not_found: no vault named "nope" (list_vaults names the vaults you may use)`},
		{"no vault at all", none, "", "not_found: this token may use no vault this server serves"},
	} {
		t.Run(s.Name, func(t *testing.T) {
			v, err := tools.PickVault(vaults, s.Allows, s.Ask)
			got := ""
			if err != nil {
				got = err.Error()
				if noema.ErrorCode(err) != noema.ENOTFOUND {
					t.Errorf("code %s", noema.ErrorCode(err))
				}
			} else {
				got = v.Name
			}
			if got != s.Want {
				t.Errorf("PickVault(%q) = %q, want %q", s.Ask, got, s.Want)
			}
		})
	}
	infos := tools.VaultInfos(vaults, homeLab, true)
	if !slices.Equal(infos, []tools.VaultInfo{{Name: "home", Default: true, ReadOnly: true}, {Name: "lab", ReadOnly: true}}) {
		t.Errorf("VaultInfos = %+v", infos)
	}
	for _, name := range []string{"work", "a-b_9", "0x"} {
		if err := tools.CheckVaultName(name); err != nil {
			t.Errorf("%q refused: %v", name, err)
		}
	}
	for _, name := range []string{"", "Work", "-a", "a b", "a/b", "a?b", string(make([]byte, 65))} {
		if err := tools.CheckVaultName(name); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("%q: %v, want invalid_argument", name, err)
		}
	}
}
