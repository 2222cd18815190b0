package provider

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The HCL users copy from the docs must name only what the provider has:
// every attribute and block of a gpu_ resource, data source or provider
// block in examples/ (which docs/ embeds), in the guides' and index's
// templates (docs/ is generated from them) and in the README is looked up
// in the schemas the provider itself serves. A renamed or removed attribute
// left in a guide fails here instead of in a user's plan.

// hclSource is one piece of HCL: a .tf file, or a fenced block of a
// Markdown file.
type hclSource struct {
	name string // file, with the fence's line for Markdown
	src  []byte
	line int // line of the source's first line in its file
}

var markdownFence = regexp.MustCompile("(?ms)^```(?:terraform|hcl)\n(.*?)^```")

// docsHCL collects the HCL of examples/, templates/ and README.md.
func docsHCL(t *testing.T, root string) []hclSource {
	t.Helper()
	var out []hclSource
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && rel != "examples" && rel != "templates" && !strings.HasPrefix(rel, "examples"+string(filepath.Separator)) &&
				!strings.HasPrefix(rel, "templates"+string(filepath.Separator)) {
				return filepath.SkipDir
			}
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(path, ".tf"):
			out = append(out, hclSource{name: rel, src: raw, line: 1})
		case strings.HasSuffix(path, ".md.tmpl") || rel == "README.md":
			for _, m := range markdownFence.FindAllSubmatchIndex(raw, -1) {
				line := 1 + strings.Count(string(raw[:m[2]]), "\n")
				out = append(out, hclSource{name: fmt.Sprintf("%s:%d", rel, line), src: raw[m[2]:m[3]], line: line})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// providerSchemas asks the provider for its schemas, as Terraform does.
func providerSchemas(t *testing.T) *tfprotov6.GetProviderSchemaResponse {
	t.Helper()
	server, err := testAccProtoV6ProviderFactories["gpu"]()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("GetProviderSchema: %s: %s", d.Summary, d.Detail)
	}
	if len(resp.ResourceSchemas) == 0 || len(resp.DataSourceSchemas) == 0 || resp.Provider == nil {
		t.Fatal("the provider serves no schemas")
	}
	return resp
}

// metaArguments are Terraform's own, valid in every resource or data block.
var metaArguments = map[string]bool{"count": true, "for_each": true, "depends_on": true, "provider": true}

// checker walks configuration bodies against schema blocks.
type checker struct {
	source   hclSource
	problems []string
}

func (c *checker) report(rng hcl.Range, format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf("%s (line %d): %s", c.source.name, c.source.line+rng.Start.Line-1,
		fmt.Sprintf(format, args...)))
}

// body checks a body against block; path names it for the report, top is
// true for a resource's or data source's own body (meta-arguments allowed).
func (c *checker) body(body *hclsyntax.Body, block *tfprotov6.SchemaBlock, path string, top bool) {
	for name, attr := range body.Attributes {
		if top && metaArguments[name] {
			continue
		}
		i := slices.IndexFunc(block.Attributes, func(a *tfprotov6.SchemaAttribute) bool { return a.Name == name })
		if i < 0 {
			c.report(attr.SrcRange, "%s.%s is not an attribute of the schema", path, name)
			continue
		}
		if nested := block.Attributes[i].NestedType; nested != nil {
			c.nestedValue(attr.Expr, nested, path+"."+name)
		}
	}
	for _, b := range body.Blocks {
		name, content := b.Type, b.Body
		if top && (name == "lifecycle" || name == "provisioner" || name == "connection") {
			continue
		}
		if name == "dynamic" && len(b.Labels) == 1 {
			name, content = b.Labels[0], nil
			for _, inner := range b.Body.Blocks {
				if inner.Type == "content" {
					content = inner.Body
				}
			}
		}
		i := slices.IndexFunc(block.BlockTypes, func(nb *tfprotov6.SchemaNestedBlock) bool { return nb.TypeName == name })
		if i < 0 {
			c.report(b.TypeRange, "%s.%s is not a block of the schema", path, name)
			continue
		}
		if content != nil {
			c.body(content, block.BlockTypes[i].Block, path+"."+name, false)
		}
	}
}

// nestedValue checks the keys of an object (or of a list of objects)
// written for a nested attribute; other expressions are not known here.
func (c *checker) nestedValue(expr hclsyntax.Expression, nested *tfprotov6.SchemaObject, path string) {
	switch e := expr.(type) {
	case *hclsyntax.TupleConsExpr:
		for _, item := range e.Exprs {
			c.nestedValue(item, nested, path)
		}
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			key := hcl.ExprAsKeyword(item.KeyExpr)
			if key == "" {
				continue
			}
			i := slices.IndexFunc(nested.Attributes, func(a *tfprotov6.SchemaAttribute) bool { return a.Name == key })
			if i < 0 {
				c.report(item.KeyExpr.Range(), "%s.%s is not an attribute of the schema", path, key)
				continue
			}
			if inner := nested.Attributes[i].NestedType; inner != nil {
				c.nestedValue(item.ValueExpr, inner, path+"."+key)
			}
		}
	}
}

func TestDocsHCL_attributesExistInSchemas(t *testing.T) {
	root := acctest.RepoRoot(t)
	schemas := providerSchemas(t)
	sources := docsHCL(t, root)
	checked := map[string]int{}
	var problems []string
	for _, s := range sources {
		file, diags := hclsyntax.ParseConfig(s.src, s.name, hcl.Pos{Line: 1, Column: 1})
		if diags.HasErrors() {
			problems = append(problems, fmt.Sprintf("%s: not valid HCL: %s", s.name, diags.Error()))
			continue
		}
		c := &checker{source: s}
		body, ok := file.Body.(*hclsyntax.Body)
		if !ok {
			t.Fatalf("%s: hclsyntax parsed a %T", s.name, file.Body)
		}
		for _, b := range body.Blocks {
			switch {
			case b.Type == "provider" && len(b.Labels) == 1 && b.Labels[0] == "gpu":
				c.body(withoutAttrs(b.Body, "alias"), schemas.Provider.Block, "provider \"gpu\"", false)
				checked["provider"]++
			case (b.Type == "resource" || b.Type == "data") && len(b.Labels) == 2 && strings.HasPrefix(b.Labels[0], "gpu_"):
				all := schemas.ResourceSchemas
				if b.Type == "data" {
					all = schemas.DataSourceSchemas
				}
				schema, ok := all[b.Labels[0]]
				if !ok {
					c.report(b.TypeRange, "%s %q does not exist", b.Type, b.Labels[0])
					continue
				}
				c.body(b.Body, schema.Block, b.Labels[0], true)
				checked[b.Type+" "+b.Labels[0]]++
			}
		}
		problems = append(problems, c.problems...)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The check must have had something to check: every resource and data
	// source appears in the examples.
	for name := range schemas.ResourceSchemas {
		if checked["resource "+name] == 0 {
			t.Errorf("no HCL in the docs uses resource %s: the check would miss it", name)
		}
	}
	for name := range schemas.DataSourceSchemas {
		if checked["data "+name] == 0 {
			t.Errorf("no HCL in the docs uses data source %s: the check would miss it", name)
		}
	}
	t.Logf("checked %d HCL sources: %v", len(sources), checked)
}

// withoutAttrs is body without the named attributes (alias is Terraform's
// own argument of a provider block).
func withoutAttrs(body *hclsyntax.Body, names ...string) *hclsyntax.Body {
	out := *body
	out.Attributes = hclsyntax.Attributes{}
	for k, v := range body.Attributes {
		if !slices.Contains(names, k) {
			out.Attributes[k] = v
		}
	}
	return &out
}

// The checker itself: a made-up attribute, block, dynamic block's content
// and nested object key are each reported, and a correct body is not.
func TestDocsHCL_checkerReportsUnknownNames(t *testing.T) {
	schemas := providerSchemas(t)
	src := `
resource "gpu_workload" "x" {
  name      = "x"
  namespace = "ml"
  image     = "i"
  manifest  = "gone"
  count     = 1
  gpu {
    count   = 1
    colour  = "green"
  }
  nosuch {}
  dynamic "job" {
    for_each = [1]
    content {
      backoff_limit = 1
      retries       = 2
    }
  }
}
`
	file, diags := hclsyntax.ParseConfig([]byte(src), "test.tf", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok || len(body.Blocks) != 1 {
		t.Fatalf("hclsyntax parsed %T", file.Body)
	}
	c := &checker{source: hclSource{name: "test.tf", line: 1}}
	c.body(body.Blocks[0].Body, schemas.ResourceSchemas["gpu_workload"].Block, "gpu_workload", true)
	got := strings.Join(c.problems, "\n")
	for _, want := range []string{"gpu_workload.manifest is not an attribute", "gpu_workload.gpu.colour is not an attribute",
		"gpu_workload.nosuch is not a block", "gpu_workload.job.retries is not an attribute"} {
		if !strings.Contains(got, want) {
			t.Errorf("not reported: %s\n(reported:\n%s)", want, got)
		}
	}
	if len(c.problems) != 4 {
		t.Errorf("%d problems, want 4:\n%s", len(c.problems), got)
	}
}

// Every `terraform output NAME` a guide tells the user to run names an
// output of the examples it shows (the Helm guide once read an output its
// example did not define).
func TestDocsHCL_guideOutputsExist(t *testing.T) {
	root := acctest.RepoRoot(t)
	templates, _ := filepath.Glob(filepath.Join(root, "templates", "guides", "*.md.tmpl"))
	if len(templates) == 0 {
		t.Fatal("no guide templates")
	}
	run := regexp.MustCompile(`terraform output (?:-\w+ )*([a-z_][a-z0-9_]*)`)
	tffile := regexp.MustCompile(`\{\{ *tffile "([^"]+)" *\}\}`)
	output := regexp.MustCompile(`(?m)^output "([^"]+)"`)
	uses := 0
	for _, tmpl := range templates {
		raw := readFile(t, tmpl)
		defined := map[string]bool{}
		shown := raw
		for _, m := range tffile.FindAllStringSubmatch(raw, -1) {
			shown += readFile(t, filepath.Join(root, m[1]))
		}
		for _, m := range output.FindAllStringSubmatch(shown, -1) {
			defined[m[1]] = true
		}
		for _, m := range run.FindAllStringSubmatch(raw, -1) {
			uses++
			if !defined[m[1]] {
				t.Errorf("%s runs `terraform output %s`, but none of its examples defines output %q", filepath.Base(tmpl), m[1], m[1])
			}
		}
	}
	if uses == 0 {
		t.Fatal("no guide runs terraform output: the check checks nothing")
	}
}
