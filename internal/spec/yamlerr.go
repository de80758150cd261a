package spec

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The YAML library's syntax errors read "yaml: line N: problem", but N is
// not always the 1-based line of the problem: the parser counts from 0,
// both leave the first line out, and reader errors (bad characters) carry
// no line at all. yamlErrorLine puts these right.

var yamlLine = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// parserProblems are the parser's messages; their line counts from 0.
var parserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"found undefined tag handle", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive",
}

var readerProblems = []string{
	"invalid leading UTF-8 octet", "incomplete UTF-8 octet sequence", "invalid trailing UTF-8 octet",
	"invalid length of a UTF-8 sequence", "invalid Unicode character", "incomplete UTF-16 character",
	"unexpected low surrogate area", "incomplete UTF-16 surrogate pair", "expected low surrogate area",
	"control characters are not allowed",
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// syntax records a YAML syntax error at its line.
func (p *parser) syntax(err error, data []byte) {
	line, msg := yamlErrorLine(err.Error(), data)
	p.add(line, &Error{Problem: "invalid yaml: " + msg, Err: err})
}

// yamlErrorLine returns the 1-based line of a YAML error (0 if unknown)
// and its message without prefix or line.
func yamlErrorLine(text string, data []byte) (int, string) {
	line, msg := 0, strings.TrimPrefix(text, "yaml: ")
	if m := yamlLine.FindStringSubmatch(text); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	switch {
	case contains(parserProblems, msg):
		return line + 1, msg
	case contains(readerProblems, msg):
		return badCharLine(data), msg
	case unknownAnchor.MatchString(msg):
		alias := "*" + unknownAnchor.FindStringSubmatch(msg)[1]
		if i := bytes.Index(data, []byte(alias)); i >= 0 {
			return lineAt(data, i), msg
		}
		return 0, msg
	case line == 0 && !strings.HasPrefix(text, "yaml: line"):
		return 1, msg // a scanner error on the first line
	}
	return line, msg
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.HasPrefix(s, x) {
			return true
		}
	}
	return false
}

// badCharLine returns the line of the first byte YAML does not accept:
// invalid UTF-8 or a control character other than tab and line breaks.
func badCharLine(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 || r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return lineAt(data, i)
		}
		i += size
	}
	return 0
}

func lineAt(data []byte, offset int) int {
	return bytes.Count(data[:offset], []byte("\n")) + 1
}
