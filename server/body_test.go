package server

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"strings"
	"testing"
)

func gz(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func deflated(b []byte) []byte {
	var out bytes.Buffer
	w := zlib.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// TestCompressedBodies: a body is read after its Content-Encoding is
// undone, and never past 1 MiB once decoded: a gzip bomb answers 413.
func TestCompressedBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Zip Zhang")
	login := []byte(`{"email":"` + a.Email + `","password":"password123"}`)
	e.want(e.do("POST", "/api/auth/login", "", gz(login), "Content-Encoding", "gzip"), 200, "gzip login")
	e.want(e.do("POST", "/api/auth/login", "", deflated(login), "Content-Encoding", "deflate"), 200, "deflate login")
	e.want(e.do("POST", "/api/auth/login", "", gz(gz(login)), "Content-Encoding", "gzip, gzip"), 200, "twice gzipped login")

	// 16 MiB of spaces inside a valid JSON object: about 16 KB gzipped.
	bomb := append(append([]byte(`{"email":"x@y.test",`), bytes.Repeat([]byte(" "), 16<<20)...), []byte(`"password":"password123"}`)...)
	small := gz(bomb)
	if len(small) > 1<<20 {
		t.Fatalf("the bomb is %d bytes compressed", len(small))
	}
	for _, c := range []struct {
		name, enc string
		body      []byte
	}{
		{"gzip bomb", "gzip", small},
		{"x-gzip bomb", "x-gzip", small},
		{"deflate bomb", "deflate", deflated(bomb)},
		{"nested bomb", "gzip, gzip", gz(small)},
		{"just over 1 MiB", "gzip", gz(append([]byte(`{"email":"`), bytes.Repeat([]byte("a"), 1<<20)...))},
	} {
		r := e.want(e.do("POST", "/api/auth/login", "", c.body, "Content-Encoding", c.enc), 413, c.name)
		if code := r.JSON(t)["code"]; code != "body_too_large" {
			t.Errorf("%s: code %v", c.name, code)
		}
	}
	for _, c := range []struct {
		name, enc string
		body      []byte
		status    int
		code      string
	}{
		{"brotli", "br", login, 415, "unsupported_encoding"},
		{"compress", "compress", login, 415, "unsupported_encoding"},
		{"three layers", "gzip, gzip, gzip", gz(gz(gz(login))), 415, "unsupported_encoding"},
		{"not gzip", "gzip", login, 400, "invalid_encoding"},
		{"cut gzip", "gzip", gz(login)[:20], 400, "invalid_encoding"},
		{"identity", "identity", login, 200, ""},
		{"not UTF-8 once unzipped", "gzip", gz([]byte("{\"email\":\"\xff\"}")), 400, "invalid_json"},
	} {
		r := e.want(e.do("POST", "/api/auth/login", "", c.body, "Content-Encoding", c.enc), c.status, c.name)
		if c.code != "" && r.JSON(t)["code"] != c.code {
			t.Errorf("%s: %s", c.name, r.Body)
		}
	}
	// A plain body that is not UTF-8 is refused, not read as U+FFFD.
	r := e.want(e.do("POST", "/api/auth/register", "", "{\"full_name\":\"Eve \xff\",\"email\":\"eve@x.test\",\"phone_number\":\"+1 555 0100\",\"password\":\"password123\"}"), 400, "non-UTF-8 body")
	if !strings.Contains(string(r.Body), "UTF-8") {
		t.Fatalf("%s", r.Body)
	}
}
