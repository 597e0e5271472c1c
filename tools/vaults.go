package tools

import (
	"context"
	"fmt"
	"io"
	"regexp"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
)

// A server may serve several vaults (noema serve --vault work=DIR --vault
// home=DIR), each its own app.App. Every MCP tool then takes an optional
// vault parameter, added to every input schema here (VaultParam) rather
// than to each In type: the MCP server takes it out of the arguments and
// picks the App the handler runs on (Env.App), so no handler knows about
// it. On the command line the global --vault flag does the same.

// VaultParam is the parameter every MCP tool takes besides its own.
const VaultParam = "vault"

// DefaultVaultName names the vault a plain --vault DIR serves (one given
// without NAME=).
const DefaultVaultName = "default"

// MaxVaultName is the longest vault name.
const MaxVaultName = 64

var vaultName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// CheckVaultName refuses (invalid_argument) a name that is not a vault
// name: lowercase letters, digits, '-' and '_', starting with a letter or
// digit, at most MaxVaultName characters — a name that reads the same in a
// URI query, a token file and a store URL.
func CheckVaultName(name string) error {
	if len(name) > MaxVaultName || !vaultName.MatchString(name) {
		return noema.Errorf(noema.EINVALID, "%q is not a vault name: use lowercase letters, digits, - and _ (at most %d characters, starting with a letter or digit)", name, MaxVaultName)
	}
	return nil
}

// Vault is one vault a server serves.
type Vault struct {
	Name string
	App  *app.App
}

// VaultInfo is a vault as list_vaults shows it to a caller.
type VaultInfo struct {
	Name string `json:"name" jsonschema:"the vault's name, the value of every tool's vault parameter"`
	// Default is the vault a call without vault uses.
	Default bool `json:"default" jsonschema:"whether calls without a vault parameter use this vault"`
	// ReadOnly: the caller's token may only read this vault.
	ReadOnly bool `json:"read_only" jsonschema:"whether the caller may only read this vault (its token is read-only)"`
}

// ListVaultsInput takes no arguments.
type ListVaultsInput struct{}

// ListVaultsOutput lists the vaults the caller may use.
type ListVaultsOutput struct {
	Vaults []VaultInfo `json:"vaults" jsonschema:"the vaults this caller may use, the default first"`
}

// NotFoundVault is the error of a vault that does not exist or that the
// caller may not use: the same words for both, so a token cannot learn
// which vaults exist beyond its own.
func NotFoundVault(name string) error {
	return noema.Errorf(noema.ENOTFOUND, "no vault named %q (list_vaults names the vaults you may use)", name).WithParam(VaultParam)
}

// PickVault returns the vault of vaults called name, or the default when
// name is empty: the first vault allows lets the caller use (allows is
// the caller's scope, httpserver.Access.Allows for a token). A vault the
// caller may not use is not_found in the very words of one that does not
// exist (NotFoundVault). Every front end that serves several vaults picks
// with it: the MCP server for tools and resources, the web view.
func PickVault(vaults []Vault, allows func(name string) bool, name string) (*Vault, error) {
	for i := range vaults {
		v := &vaults[i]
		if allows(v.Name) && (name == "" || v.Name == name) {
			return v, nil
		}
	}
	if name == "" {
		return nil, noema.Errorf(noema.ENOTFOUND, "this token may use no vault this server serves")
	}
	return nil, NotFoundVault(name)
}

// VaultInfos lists the vaults of vaults that allows lets the caller use,
// the default first, for list_vaults (Env.Vaults); readOnly says the
// caller may only read them.
func VaultInfos(vaults []Vault, allows func(name string) bool, readOnly bool) []VaultInfo {
	out := []VaultInfo{}
	for _, v := range vaults {
		if allows(v.Name) {
			out = append(out, VaultInfo{Name: v.Name, Default: len(out) == 0, ReadOnly: readOnly})
		}
	}
	return out
}

// vaultSchema is the vault parameter's schema.
func vaultSchema() *jsonschema.Schema {
	maxLength := MaxVaultName
	return &jsonschema.Schema{
		Type:        "string",
		Description: "the vault to use, by name (list_vaults names them); default: the first vault the server serves",
		MaxLength:   &maxLength,
	}
}

func vaultListTools() []*Tool {
	return []*Tool{
		New(Def{
			Name: "list_vaults", Command: "vault list", Toolset: "admin", Title: "List vaults", Hints: readOnly, NoVault: true,
			Description: "The vaults this server serves that you may use, by name: pass one as any tool's vault parameter. A call without vault uses the default one.",
		}, func(_ context.Context, e *Env, _ ListVaultsInput) (*ListVaultsOutput, error) {
			out := &ListVaultsOutput{Vaults: e.Vaults}
			if out.Vaults == nil {
				out.Vaults = []VaultInfo{}
			}
			return out, nil
		}, func(w io.Writer, o *ListVaultsOutput) {
			for _, v := range o.Vaults {
				fmt.Fprint(w, v.Name)
				if v.Default {
					fmt.Fprint(w, " (default)")
				}
				if v.ReadOnly {
					fmt.Fprint(w, " (read-only)")
				}
				fmt.Fprintln(w)
			}
		}),
	}
}
