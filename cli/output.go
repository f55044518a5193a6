package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// print writes data as indented JSON (--output json) or as a table of
// headers and rows (the default).
func (a *app) print(data any, headers []string, rows [][]string) error {
	if a.output == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(data)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(headers, "\t"))
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	return w.Flush()
}

// say writes a message for a person on stderr (data goes to stdout).
func (a *app) say(format string, args ...any) {
	fmt.Fprintf(a.stderr, format+"\n", args...)
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}
