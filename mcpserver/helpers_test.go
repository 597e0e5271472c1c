package mcpserver_test

import "github.com/noema-mem/noema/notes"

func notesRecent() notes.RecentInput { return notes.RecentInput{Limit: 10} }
