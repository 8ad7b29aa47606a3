package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// The page's only script and style sheet, inlined into every page.
var (
	//go:embed assets/report.js
	pageJS string
	//go:embed assets/report.css
	pageCSS string
)

// CompressAbove is the size of page data (JSON bytes) above which it is
// embedded gzipped: about 8 MB, some 15,000 Featherbench trials.
const CompressAbove = 8 << 20

// csp forbids every fetch: the page must work from disk with nothing but
// its own inline script (pinned by hash) and styles.
var csp = func() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

var layout = template.Must(template.New("layout").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="generator" content="feather report">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body data-kind="{{.Kind}}">
<header>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
{{- if .Nav}}
<nav>{{range .Nav}}<a href="{{.Href}}"{{if .Current}} aria-current="page"{{end}}>{{.Label}}</a>{{end}}</nav>
{{- end}}
</header>
<main>
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{.Body}}
</main>
`))

// Link is one entry of a page's navigation.
type Link struct {
	Href, Label string
	Current     bool
}

// page is what every report page has.
type page struct {
	Kind, Title, Subtitle string
	Nav                   []Link
	Notes                 []string
	// Body is the page's server-rendered HTML, built from templates.
	Body template.HTML
	// Data is embedded as JSON for the script to render lazily; nil for a
	// page without a script part.
	Data any
	// Detail, when set, is embedded after the script (id feather-detail):
	// bulky data that only a drill-down needs, so the page is drawn and
	// usable before the browser has read it.
	Detail any
}

// write renders p: the static HTML, then the data as an inert JSON block
// (encoding/json escapes <, > and &, so no text can close the element),
// then the script.
func (p page) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	err := layout.Execute(bw, struct {
		page
		CSP string
		CSS template.CSS
	}{p, csp, template.CSS(pageCSS)})
	if err != nil {
		return fmt.Errorf("rendering %s page: %w", p.Kind, err)
	}
	if p.Data != nil {
		if err := embed(bw, dataID, p.Data); err != nil {
			return fmt.Errorf("encoding %s data: %w", p.Kind, err)
		}
		bw.WriteString("</script>\n<script>")
		bw.WriteString(pageJS)
		bw.WriteString("</script>\n")
		if p.Detail != nil {
			if err := embed(bw, detailID, p.Detail); err != nil {
				return fmt.Errorf("encoding %s details: %w", p.Kind, err)
			}
			bw.WriteString("</script>\n")
		}
	}
	bw.WriteString("</body>\n</html>\n")
	return bw.Flush()
}

// The ids of the data elements.
const (
	dataID   = "feather-data"
	detailID = "feather-detail"
)

// embed writes v as a data element with id, left open.
func embed(w *bufio.Writer, id string, v any) error {
	data := &dataWriter{out: w, id: id}
	if err := writeData(data, v); err != nil {
		return err
	}
	return data.Close()
}

// dataWriter writes the page data's script element. It holds the JSON
// until it outgrows CompressAbove; then, since browsers read a large page
// at a few MB a second from disk, it writes the element for gzipped data
// and streams the rest through gzip (the script unpacks it with the
// browser's own DecompressionStream), so a page of 100,000 records never
// holds its whole JSON in memory.
type dataWriter struct {
	out  *bufio.Writer
	id   string // the element's id: dataID unless set
	held bytes.Buffer
	b64  io.WriteCloser
	zw   *gzip.Writer // nil until the data outgrows CompressAbove
}

func (d *dataWriter) Write(p []byte) (int, error) {
	if d.zw == nil {
		if d.held.Len()+len(p) <= CompressAbove {
			return d.held.Write(p)
		}
		if err := d.compress(); err != nil {
			return 0, err
		}
	}
	return d.zw.Write(p)
}

// compress opens the element for gzipped data and sends what was held
// through gzip.
func (d *dataWriter) compress() error {
	d.out.WriteString(`<script type="application/octet-stream" id="` + d.elementID() + `" data-encoding="gzip+base64">`)
	d.b64 = base64.NewEncoder(base64.StdEncoding, d.out)
	d.zw, _ = gzip.NewWriterLevel(d.b64, gzip.BestSpeed)
	_, err := d.zw.Write(d.held.Bytes())
	d.held = bytes.Buffer{}
	return err
}

func (d *dataWriter) elementID() string {
	if d.id == "" {
		return dataID
	}
	return d.id
}

// Close writes data small enough to stay plain JSON, or ends the gzip
// and base64 streams; the script element is left open.
func (d *dataWriter) Close() error {
	if d.zw == nil {
		d.out.WriteString(`<script type="application/json" id="` + d.elementID() + `">`)
		_, err := d.out.Write(d.held.Bytes())
		return err
	}
	if err := d.zw.Close(); err != nil {
		return err
	}
	return d.b64.Close()
}

// bulky is page data with one long list of rows, left out of its JSON
// encoding (json:"-") and encoded row by row by writeData, so a page of
// 100,000 records streams its JSON row by row into dataWriter rather
// than marshalling it whole and copying it there.
type bulky interface {
	rows() (name string, rows [][]any)
}

// writeData writes v as JSON; a bulky value's rows are appended to the
// object as one more member.
func writeData(w io.Writer, v any) error {
	head, err := json.Marshal(v) // escapes <, > and & as \u003c, \u003e, \u0026
	if err != nil {
		return err
	}
	b, ok := v.(bulky)
	if !ok {
		_, err := w.Write(head)
		return err
	}
	name, rows := b.rows()
	key, _ := json.Marshal(name)
	if _, err := w.Write(head[:len(head)-1]); err != nil {
		return err
	}
	if len(head) > 2 {
		io.WriteString(w, ",")
	}
	w.Write(key)
	io.WriteString(w, ":[")
	enc := json.NewEncoder(w)
	for i, r := range rows {
		if i > 0 {
			io.WriteString(w, ",")
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "]}")
	return err
}

// render executes a body template into trusted HTML.
func render(t *template.Template, data any) (template.HTML, error) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
