package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/tools"
)

// A command line names its vaults with --vault, repeatable, each DIR or
// NAME=DIR (else with $NOEMA_VAULT, which may hold several NAME=DIR
// separated by the system's list separator, ':' on Unix, as PATH does).
// A vault given as a bare DIR is named "default" (tools.DefaultVaultName),
// whatever its folder is called, so a one-vault server's name never depends
// on where the folder lives. `noema serve` and `noema mcp` serve every
// vault named, the first being the default; any other command runs on the
// first — or, when --vault gives a bare NAME that $NOEMA_VAULT names, on
// that one (NOEMA_VAULT=work=~/w:home=~/h noema --vault home search x).

// vaultSpec is one vault the command line names.
type vaultSpec struct {
	Name, Dir string
}

// vaultFlag is the repeatable --vault flag.
type vaultFlag struct{ values *[]string }

func (f vaultFlag) String() string {
	if f.values == nil {
		return ""
	}
	return strings.Join(*f.values, ",")
}

func (f vaultFlag) Set(s string) error {
	*f.values = append(*f.values, s)
	return nil
}

// splitVaultArg splits NAME=DIR; a value whose part before '=' is no
// vault name (a folder that holds '=', say) is a bare DIR.
func splitVaultArg(s string) (name, dir string, named bool) {
	name, dir, ok := strings.Cut(s, "=")
	if !ok || dir == "" || tools.CheckVaultName(name) != nil {
		return "", s, false
	}
	return name, dir, true
}

// envVaults reads $NOEMA_VAULT: several NAME=DIR when every entry is one,
// else one folder.
func envVaults(value string) []vaultSpec {
	if value == "" {
		return nil
	}
	var specs []vaultSpec
	for _, part := range filepath.SplitList(value) {
		name, dir, named := splitVaultArg(part)
		if !named {
			return []vaultSpec{{Dir: value}}
		}
		specs = append(specs, vaultSpec{Name: name, Dir: dir})
	}
	return specs
}

// vaultSpecs returns the vaults the global flags and environment name, the
// default first, each named. A vault of a bare DIR is named "default";
// two of them, or a name given twice, is a usage error.
func (c *CLI) vaultSpecs() ([]vaultSpec, error) {
	fromEnv := envVaults(c.Getenv("NOEMA_VAULT"))
	var specs []vaultSpec
	switch {
	case len(c.vaultArgs) == 1 && c.pickFrom(fromEnv) != nil:
		specs = []vaultSpec{*c.pickFrom(fromEnv)}
	case len(c.vaultArgs) > 0:
		for _, arg := range c.vaultArgs {
			name, dir, _ := splitVaultArg(arg)
			specs = append(specs, vaultSpec{Name: name, Dir: dir})
		}
	case len(fromEnv) > 0:
		specs = fromEnv
	default:
		dir, err := app.DefaultVaultDir()
		if err != nil {
			return nil, err
		}
		specs = []vaultSpec{{Dir: dir}}
	}
	seen := map[string]bool{}
	for i := range specs {
		if specs[i].Name == "" {
			specs[i].Name = tools.DefaultVaultName
		}
		if seen[specs[i].Name] {
			if specs[i].Name == tools.DefaultVaultName {
				return nil, usagef("several vaults without a name: give each one as --vault NAME=DIR")
			}
			return nil, usagef("two vaults are named %q", specs[i].Name)
		}
		seen[specs[i].Name] = true
	}
	return specs, nil
}

// pickFrom returns the vault of env that a lone bare --vault NAME names.
func (c *CLI) pickFrom(env []vaultSpec) *vaultSpec {
	if len(env) < 2 && (len(env) == 0 || env[0].Name == "") {
		return nil
	}
	for i := range env {
		if env[i].Name == c.vaultArgs[0] {
			return &env[i]
		}
	}
	return nil
}

// vaultInfos lists specs for list_vaults on the command line, which may
// use every vault.
func vaultInfos(specs []vaultSpec) []tools.VaultInfo {
	out := make([]tools.VaultInfo, len(specs))
	for i, s := range specs {
		out[i] = tools.VaultInfo{Name: s.Name, Default: i == 0}
	}
	return out
}

// openVaults opens every vault the command line names, each its own App
// (its own index, watcher and background work), for serve and mcp. A store
// URL without a vault parameter (--store, $NOEMA_STORE or a vault's own
// config) follows the vault of the served vault's name; two served vaults
// that would follow the same vault of one database are an error.
func (c *CLI) openVaults(ctx context.Context) ([]tools.Vault, error) {
	specs, err := c.vaultSpecs()
	if err != nil {
		return nil, err
	}
	var vaults []tools.Vault
	closeAll := func() { closeVaults(vaults) }
	followed := map[string]string{} // database and vault → served vault
	for _, s := range specs {
		a, err := c.openSpec(ctx, s, true, len(specs) > 1)
		if err != nil {
			closeAll()
			if len(specs) > 1 {
				return nil, noema.WrapError(err, noema.ErrorCode(err), "vault %s: %s", s.Name, noema.ErrorMessage(err))
			}
			return nil, err
		}
		vaults = append(vaults, tools.Vault{Name: s.Name, App: a})
		if a.Config.Store != "" {
			dsn, name, _ := postgres.SplitVault(a.Config.Store)
			key := dsn + "\x00" + name
			if other, ok := followed[key]; ok {
				closeAll()
				return nil, noema.Errorf(noema.EINVALID, "vaults %s and %s would both follow vault %q of the same store: give each its own (?vault=NAME)", other, s.Name, name)
			}
			followed[key] = s.Name
		}
	}
	return vaults, nil
}

// openSpec opens the vault s. create makes a missing folder; several says
// the command line names more than one vault (its logs then say which).
func (c *CLI) openSpec(ctx context.Context, s vaultSpec, create, several bool) (*app.App, error) {
	if err := checkFolder(s.Dir, create, "a write, 'noema serve' or 'noema mcp' creates it; or give --vault or NOEMA_VAULT"); err != nil {
		return nil, err
	}
	cfg, err := c.config(s.Dir)
	if err != nil {
		return nil, err
	}
	if cfg.Store != "" && s.Name != tools.DefaultVaultName { // the store's default vault is "default" too
		cfg.Store = postgres.WithVault(cfg.Store, s.Name)
	}
	logger := c.logger()
	if several {
		logger = logger.With("vault", s.Name)
	}
	return app.Open(ctx, s.Dir, app.Options{Logger: logger, Config: &cfg})
}

// describeVaults says which vaults a server serves, for its start line.
func describeVaults(vaults []tools.Vault) string {
	if len(vaults) == 1 {
		return vaults[0].App.Vault.Root
	}
	parts := make([]string, len(vaults))
	for i, v := range vaults {
		parts[i] = fmt.Sprintf("%s=%s", v.Name, v.App.Vault.Root)
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (default %s)", vaults[0].Name)
}

// checkTokenVaults refuses a token file that names a vault the server does
// not serve: a typo would otherwise lock its token out without a word.
func checkTokenVaults(path string, tokens []tokenVaults, vaults []tools.Vault) error {
	served := map[string]bool{}
	var names []string
	for _, v := range vaults {
		served[v.Name] = true
		names = append(names, v.Name)
	}
	for _, t := range tokens {
		for _, name := range t.vaults {
			if !served[name] {
				return noema.Errorf(noema.EINVALID, "token file %s: token %q names vault %q, which this server does not serve (it serves %s)",
					path, t.name, name, strings.Join(names, ", "))
			}
		}
	}
	return nil
}

// tokenVaults is a token's name and the vaults it names.
type tokenVaults struct {
	name   string
	vaults []string
}

// warnf prints a warning on standard error.
func (c *CLI) warnf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "noema: warning: "+format+"\n", args...)
}
