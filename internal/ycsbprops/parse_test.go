package ycsbprops

import (
	"reflect"
	"strings"
	"testing"
)

// TestParse checks java.util.Properties' format: separators, comments,
// blank lines, continuations, escapes and line numbers.
func TestParse(t *testing.T) {
	type kv struct {
		name, value string
		line        int
	}
	cases := []struct {
		name string
		in   string
		want []kv
	}{
		{"equals", "a=1\nb = 2\n", []kv{{"a", "1", 1}, {"b", "2", 2}}},
		{"colon", "a:1\nb : 2", []kv{{"a", "1", 1}, {"b", "2", 2}}},
		{"space", "a 1\nb\t\t2\nc\f3", []kv{{"a", "1", 1}, {"b", "2", 2}, {"c", "3", 3}}},
		{"space then separator", "a = = 1\nb : =2", []kv{{"a", "= 1", 1}, {"b", "=2", 2}}},
		{"no value", "a\nb=\nc :", []kv{{"a", "", 1}, {"b", "", 2}, {"c", "", 3}}},
		{"value keeps trailing blanks and inner separators", "url=mongodb://h:1/?w=1 \n", []kv{{"url", "mongodb://h:1/?w=1 ", 1}}},
		{"comments and blank lines", "# c\n! c\n   # indented\n\n \t \nk=v\n", []kv{{"k", "v", 6}}},
		{"a comment does not continue", "# c \\\nk=v", []kv{{"k", "v", 2}}},
		{"continuation", "k=a,\\\n    b,\\\n\tc\nn=1", []kv{{"k", "a,b,c", 1}, {"n", "1", 4}}},
		{"continued line is never a comment", "k=a\\\n  #b", []kv{{"k", "a#b", 1}}},
		{"continuation onto a blank line ends the value", "k=a\\\n\nn=1", []kv{{"k", "a", 1}, {"n", "1", 3}}},
		{"even backslashes do not continue", "k=a\\\\\nn=1", []kv{{"k", `a\`, 1}, {"n", "1", 2}}},
		{"backslash at the end of the file", "k=a\\", []kv{{"k", "a", 1}}},
		{"CR and CRLF line ends", "a=1\r\nb=2\rc=3\r\n\r\nd=4", []kv{{"a", "1", 1}, {"b", "2", 2}, {"c", "3", 3}, {"d", "4", 5}}},
		{"escaped separators in the key", `a\=b\:c\ d=e`, []kv{{"a=b:c d", "e", 1}}},
		{"escapes", `k=\t\n\r\f\u0041\z\\`, []kv{{"k", "\t\n\r\fAz\\", 1}}},
		{"ISO 8859-1 bytes", "k=caf\xe9", []kv{{"k", "café", 1}}},
		{"no final line end", "k=v", []kv{{"k", "v", 1}}},
		{"a repeated key is returned each time", "k=1\nk=2", []kv{{"k", "1", 1}, {"k", "2", 2}}},
		{"empty", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props, err := Parse("f", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []kv
			for _, p := range props {
				if p.File != "f" {
					t.Errorf("%s: file %q, want f", p.Name, p.File)
				}
				got = append(got, kv{p.Name, p.Value, p.Line})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestParseMalformedEscape checks the one error: a bad \uXXXX, named by
// file and line.
func TestParseMalformedEscape(t *testing.T) {
	for _, in := range []string{"a=1\n\nk=\\u00G1", "a=1\n\nk=\\u12", "a=1\n\n\\u1=x"} {
		_, err := Parse("w.properties", []byte(in))
		if err == nil || !strings.HasPrefix(err.Error(), `w.properties:3: malformed \uxxxx escape`) {
			t.Errorf("%q: got %v, want an error at w.properties:3", in, err)
		}
	}
}

func TestAssignment(t *testing.T) {
	p, err := Assignment("mongodb.url=mongodb://h/?w=1")
	if err != nil || p.Name != "mongodb.url" || p.Value != "mongodb://h/?w=1" || p.File != "" {
		t.Errorf("got %+v, %v", p, err)
	}
	if _, err := Assignment("threadcount"); err == nil || !strings.Contains(err.Error(), "-p") {
		t.Errorf("no =: got %v, want an error naming -p", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("a=1\\\n  b\n# c\n!d\r\ne:f g\\u0041"))
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := Parse("f", data)
		if err != nil {
			return
		}
		for _, p := range props {
			if p.Line < 1 || p.Line > strings.Count(string(data), "\n")+strings.Count(string(data), "\r")+1 {
				t.Fatalf("line %d out of range", p.Line)
			}
		}
	})
}
