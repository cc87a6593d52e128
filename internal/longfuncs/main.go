// Command longfuncs lists the non-test functions longer than a limit (100 lines by default) in a
// tree of Go files, longest first, and their number: the measure of issue 21's "functions over
// 100 lines". A function's length is the span of lines from `func` to its closing brace.
//
//	go run ./internal/longfuncs [-max 100] [dir]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type long struct {
	lines int
	where string
}

func main() {
	limit := flag.Int("max", 100, "report functions longer than this many lines")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	var found []long
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > *limit {
				found = append(found, long{n, fmt.Sprintf("%s %s", path, fn.Name.Name)})
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "longfuncs:", err)
		os.Exit(1)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].lines > found[j].lines })
	for _, l := range found {
		fmt.Printf("%5d %s\n", l.lines, l.where)
	}
	fmt.Printf("%d non-test functions over %d lines\n", len(found), *limit)
}
