package deps

import (
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/term"
	_ "golang.org/x/text/cases"
	_ "golang.org/x/text/unicode/norm"
	_ "modernc.org/sqlite"
)
