package checkers

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the pure-Go "sqlite" driver

	"github.com/feather-eval/feather/internal/jsonpos"
)

func init() { Register("sql_result", compileSQLResult) }

// DefaultSQLTimeout applies when a sql_result node has no timeout_s.
const DefaultSQLTimeout = 10 * time.Second

// sql_result: the response's query (SQLQuery) runs against a fresh
// in-memory SQLite database built by setup_sql, and its rows equal
// expected_rows: in order when ordered is true, as a multiset otherwise.
// Column names are not compared. Numbers compare by value (3 equals 3.0,
// to 12 significant digits), text only equals text, null equals null.
func compileSQLResult(s *Spec) (Func, error) {
	var setup string
	var expected [][]any
	var ordered bool
	s.Decode("setup_sql", &setup)
	s.Require("expected_rows", &expected, `the rows the query must return, a list of lists such as [["Ada", 3], ["Bob", 1]]`)
	s.Decode("ordered", &ordered)
	timeout := s.timeout(DefaultSQLTimeout)
	if s.Err() != nil {
		return nil, s.Err()
	}
	want := make([]string, len(expected))
	for i, row := range expected {
		cells := make([]string, len(row))
		for j, v := range row {
			c, err := jsonCell(v)
			if err != nil {
				return nil, s.Errorf(fmt.Sprintf("expected_rows[%d][%d]", i, j), "%v", err)
			}
			cells[j] = c
		}
		want[i] = "[" + strings.Join(cells, ", ") + "]"
	}
	// Build the fixture once now, so a broken setup_sql fails the task at
	// load time rather than every trial.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if db, err := fixture(ctx, setup); err != nil {
		return nil, s.Errorf("setup_sql", "%v", err)
	} else {
		db.Close()
	}
	if !ordered {
		sort.Strings(want)
	}
	return func(ctx context.Context, r Response) (bool, string, error) {
		query, ok := SQLQuery(r.Text)
		if !ok {
			return false, "no ```sql block in the response", nil
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		db, err := fixture(ctx, setup)
		if err != nil {
			return false, "", fmt.Errorf("building the fixture: %w", err)
		}
		defer db.Close()
		got, err := queryRows(ctx, db, query)
		if err != nil {
			if ctx.Err() != nil {
				return false, fmt.Sprintf("the query did not finish within %v", timeout), nil
			}
			return false, "the query failed: " + err.Error(), nil
		}
		if !ordered {
			sort.Strings(got)
		}
		order := "in order"
		if !ordered {
			order = "in any order"
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return false, fmt.Sprintf("rows differ (%s): got %s, want %s", order, clip(strings.Join(got, " "), 300), clip(strings.Join(want, " "), 300)), nil
		}
		return true, fmt.Sprintf("%d rows match (%s)", len(got), order), nil
	}, nil
}

var dbSeq atomic.Int64

// fixture opens a private in-memory database and runs setup in it. One
// connection only: each connection to :memory: is a different database.
func fixture(ctx context.Context, setup string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", fmt.Sprintf("file:feather-%d?mode=memory", dbSeq.Add(1)))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if strings.TrimSpace(setup) != "" {
		if _, err := db.ExecContext(ctx, setup); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

func queryRows(ctx context.Context, db *sql.DB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = sqlCell(v)
		}
		out = append(out, "["+strings.Join(cells, ", ")+"]")
	}
	return out, rows.Err()
}

// Cells are compared in a canonical string form.
func sqlCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int64:
		return number(float64(x))
	case float64:
		return number(x)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case []byte:
		return strconv.Quote(string(x))
	case string:
		return strconv.Quote(x)
	case time.Time:
		return strconv.Quote(x.Format(time.RFC3339Nano))
	}
	return strconv.Quote(fmt.Sprint(v))
}

func jsonCell(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return "", err
		}
		return number(f), nil
	case bool: // SQLite stores booleans as 1 and 0
		if x {
			return "1", nil
		}
		return "0", nil
	case string:
		return strconv.Quote(x), nil
	}
	return "", fmt.Errorf("must be a string, number, boolean or null (one cell), not %s", jsonpos.ValueKind(v))
}

func number(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', 12, 64)
}
