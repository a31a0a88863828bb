package bolt

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestExpBatch(t *testing.T) {
	items := benchItems(benchData(benchComments))
	for _, bs := range []int{5000, 10000, 20000, 5000, 10000, 20000} {
		path := filepath.Join(t.TempDir(), "x.db")
		tbl, _ := Open(path, WithBatchSize(bs))
		start := time.Now()
		if err := tbl.BatchPut(t.Context(), items); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		st := tbl.db.Stats()
		tbl.Close()
		fi, _ := os.Stat(path)
		t.Logf("batch %d: %v, %d MB, written %d MB", bs, d, fi.Size()>>20, st.TxStats.PageAlloc>>20)
	}
}
