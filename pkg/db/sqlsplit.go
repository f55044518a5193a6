package db

import (
	"strings"
	"unicode"
)

// Statement is one SQL statement of a migration file.
type Statement struct {
	// Text is the statement as written (comments kept, no final semicolon).
	Text string
	// Shape is the statement for matching rules: comments gone, string
	// literals and dollar-quoted bodies (a function's code) replaced by
	// '…', whitespace collapsed, upper case. A keyword inside a function
	// body or a string never shows in Shape.
	Shape string
}

// SplitStatements splits SQL text into statements at the semicolons that
// end them: not inside a comment, a quoted string or identifier, or a
// dollar-quoted body.
func SplitStatements(sql string) []Statement {
	var out []Statement
	var text, shape strings.Builder
	flush := func() {
		s := strings.TrimSpace(text.String())
		sh := strings.ToUpper(strings.Join(strings.Fields(shape.String()), " "))
		if sh != "" {
			out = append(out, Statement{Text: s, Shape: sh})
		}
		text.Reset()
		shape.Reset()
	}
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql) - i
			}
			text.WriteString(sql[i : i+end])
			shape.WriteByte(' ')
			i += end
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			// Block comments nest in PostgreSQL.
			depth, j := 1, i+2
			for j < len(sql) && depth > 0 {
				switch {
				case strings.HasPrefix(sql[j:], "/*"):
					depth++
					j += 2
				case strings.HasPrefix(sql[j:], "*/"):
					depth--
					j += 2
				default:
					j++
				}
			}
			text.WriteString(sql[i:j])
			shape.WriteByte(' ')
			i = j
		case c == '\'':
			// 'it''s', and E'it\'s' (the E was already written as a letter).
			j := quotedEnd(sql, i, '\'', i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e'))
			text.WriteString(sql[i:j])
			shape.WriteString("'…'")
			i = j
		case c == '"':
			j := quotedEnd(sql, i, '"', false)
			text.WriteString(sql[i:j])
			shape.WriteString(sql[i:j])
			i = j
		case c == '$' && dollarTag(sql[i:]) != "":
			tag := dollarTag(sql[i:])
			end := strings.Index(sql[i+len(tag):], tag)
			j := len(sql)
			if end >= 0 {
				j = i + len(tag) + end + len(tag)
			}
			text.WriteString(sql[i:j])
			shape.WriteString("'…'")
			i = j
		case c == ';':
			flush()
			i++
		default:
			text.WriteByte(c)
			shape.WriteByte(c)
			i++
		}
	}
	flush()
	return out
}

// quotedEnd returns where the quoted string or identifier opening at
// sql[i] ends (after its closing quote; a doubled quote is one quote, and
// with backslashes, \x is one character), or len(sql).
func quotedEnd(sql string, i int, quote byte, backslashes bool) int {
	j := i + 1
	for j < len(sql) {
		switch {
		case backslashes && sql[j] == '\\':
			j += 2
		case sql[j] == quote && j+1 < len(sql) && sql[j+1] == quote:
			j += 2
		case sql[j] == quote:
			return j + 1
		default:
			j++
		}
	}
	return len(sql)
}

// dollarTag returns the opening $tag$ at the start of s ("$$", "$body$"),
// or "" when s does not start one ($1 is a parameter, not a tag).
func dollarTag(s string) string {
	if len(s) < 2 || s[0] != '$' {
		return ""
	}
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || unicode.IsLetter(rune(c)) || (j > 1 && unicode.IsDigit(rune(c))):
		default:
			return ""
		}
	}
	return ""
}
