package ycsbprops

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/spec"
)

// Property is one YCSB property: read from a property file (File and
// Line) or given on the command line as -p name=value (File empty).
type Property struct {
	Name  string
	Value string
	File  string // the property file; empty for -p
	Line  int    // 1-based line of the property in File
}

// at returns an error located at the property: its file and line, or
// its -p assignment.
func (p Property) at() *spec.Error {
	if p.File == "" {
		return &spec.Error{Field: "-p " + p.Name, Value: p.Value}
	}
	return &spec.Error{File: p.File, Line: p.Line, Field: p.Name, Value: p.Value}
}

// Parse reads a YCSB property file as YCSB's client reads it
// (java.util.Properties.load from a byte stream): bytes are ISO 8859-1
// characters; a natural line ends at \n, \r or \r\n; a line ending in an
// odd number of backslashes continues on the next one, whose leading
// white space is dropped; a line whose first non-blank character is # or
// ! is a comment (and never continues); blank lines are skipped. The key
// ends at the first unescaped =, : or white space; white space around the
// separator is dropped, and one = or : after white space is the
// separator. Keys and values undergo \t \n \r \f \uXXXX escapes, and a
// backslash before any other character stands for that character. A key
// given twice keeps its last value, as Properties does; Parse returns
// every line in file order. The one error Java reports, a malformed
// \uXXXX escape, names the file and line.
func Parse(file string, data []byte) ([]Property, error) {
	text := latin1(data)
	var props []Property
	for _, l := range logicalLines(text) {
		key, value := splitKeyValue(l.text)
		k, err := unescape(key)
		if err == nil {
			var v string
			if v, err = unescape(value); err == nil {
				props = append(props, Property{Name: k, Value: v, File: file, Line: l.line})
				continue
			}
		}
		return nil, &spec.Error{File: file, Line: l.line, Problem: err.Error()}
	}
	return props, nil
}

// Assignment reads a -p assignment as YCSB's client does: the name is
// everything before the first =, the value everything after it.
func Assignment(s string) (Property, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return Property{}, &spec.Error{Field: "-p", Value: s, Want: "name=value, such as operationcount=99999"}
	}
	return Property{Name: name, Value: value}, nil
}

// latin1 decodes ISO 8859-1 bytes: each byte is the code point of its
// value.
func latin1(data []byte) string {
	var b strings.Builder
	b.Grow(len(data))
	for _, c := range data {
		b.WriteRune(rune(c))
	}
	return b.String()
}

// logicalLine is one key-value line, continuations joined, with the line
// it starts on.
type logicalLine struct {
	text string
	line int
}

// logicalLines splits text into logical lines as Properties.LineReader
// does, leaving out comments and blank lines.
func logicalLines(text string) []logicalLine {
	var (
		out        []logicalLine
		buf        []rune
		line       = 1 // current natural line
		start      = 0 // line the logical line starts on
		skipWhite  = true
		newLine    = true // at the first non-blank character of a logical line
		comment    = false
		continued  = false // skipping the leading blanks of a continuation
		backslash  = false // the last character is an unescaped backslash
		runes      = []rune(text)
		emit       = func() { out = append(out, logicalLine{text: string(buf), line: start}) }
		resetState = func() {
			buf, skipWhite, newLine, comment, continued, backslash = buf[:0], true, true, false, false, false
		}
	)
	for i := 0; i < len(runes); i++ {
		c := runes[i]
		eol := c == '\n' || c == '\r'
		if eol && c == '\r' && i+1 < len(runes) && runes[i+1] == '\n' {
			i++ // \r\n is one line end
		}
		if skipWhite {
			if c == ' ' || c == '\t' || c == '\f' {
				continue
			}
			if eol && !continued {
				line++ // a blank line
				continue
			}
			skipWhite, continued = false, false
		}
		if newLine && !eol {
			newLine = false
			start = line
			if c == '#' || c == '!' {
				comment = true
			}
		}
		if !eol {
			if !comment {
				buf = append(buf, c)
				backslash = c == '\\' && !backslash
			}
			continue
		}
		line++
		switch {
		case comment || len(buf) == 0:
			resetState()
		case backslash:
			buf = buf[:len(buf)-1] // the backslash escaping the line end
			skipWhite, continued, backslash = true, true, false
		default:
			emit()
			resetState()
		}
	}
	if !comment && len(buf) > 0 {
		if backslash {
			buf = buf[:len(buf)-1]
		}
		emit()
	}
	return out
}

// splitKeyValue splits a logical line into its raw (still escaped) key
// and value, as Properties.load0 does.
func splitKeyValue(l string) (key, value string) {
	runes := []rune(l)
	keyLen, valueStart, hasSep, backslash := 0, len(runes), false, false
	for keyLen < len(runes) {
		c := runes[keyLen]
		if (c == '=' || c == ':') && !backslash {
			valueStart, hasSep = keyLen+1, true
			break
		}
		if (c == ' ' || c == '\t' || c == '\f') && !backslash {
			valueStart = keyLen + 1
			break
		}
		backslash = c == '\\' && !backslash
		keyLen++
	}
	for valueStart < len(runes) {
		c := runes[valueStart]
		if c != ' ' && c != '\t' && c != '\f' {
			if hasSep || (c != '=' && c != ':') {
				break
			}
			hasSep = true
		}
		valueStart++
	}
	return string(runes[:keyLen]), string(runes[valueStart:])
}

// unescape applies Properties.loadConvert's escapes.
func unescape(s string) (string, error) {
	if !strings.ContainsRune(s, '\\') {
		return s, nil
	}
	runes := []rune(s)
	var b strings.Builder
	for i := 0; i < len(runes); i++ {
		c := runes[i]
		if c != '\\' || i+1 == len(runes) {
			b.WriteRune(c)
			continue
		}
		i++
		switch c = runes[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(runes) {
				return "", fmt.Errorf(`malformed \uxxxx escape %q: want four hexadecimal digits`, string(runes[i-1:]))
			}
			n, err := strconv.ParseUint(string(runes[i+1:i+5]), 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uxxxx escape %q: want four hexadecimal digits`, string(runes[i-1:i+5]))
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteRune(c)
		}
	}
	return b.String(), nil
}
