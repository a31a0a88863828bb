package e2e

// Crash safety of the embedded (bolt) store: kill -9 of `gw serve` during a
// stream of mutations, and of `gw import` during a bulk load. After a
// restart the store opens, every acknowledged write is there, and the stats
// equal a recount of the comments.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/testutil"
)

// crashServer is a `gw serve` this file kills with SIGKILL (Server.Stop
// would report that as an unclean exit).
type crashServer struct {
	*Server
	pid int
}

// startCrashServer starts `gw serve` on the bolt file db. Its cleanup kills
// it (SIGKILL) if it is still running.
func startCrashServer(tb testing.TB, db string) *crashServer {
	tb.Helper()
	argv := []string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-open-mutations", "-store", "bolt:" + db}
	s := startServer(tb, MustBinary(tb), argv, nil, func(s *Server) { (&crashServer{Server: s, pid: s.cmd.Process.Pid}).kill(tb) })
	return &crashServer{Server: s, pid: s.cmd.Process.Pid}
}

// kill sends SIGKILL to the server's pid and waits for it to exit.
func (cs *crashServer) kill(tb testing.TB) {
	select {
	case <-cs.exited:
		return
	default:
	}
	if err := syscall.Kill(cs.pid, syscall.SIGKILL); err != nil {
		tb.Errorf("kill -9 %d: %v", cs.pid, err)
	}
	select {
	case <-cs.exited:
	case <-time.After(30 * time.Second):
		tb.Errorf("gw serve (pid %d) still running 30s after SIGKILL", cs.pid)
	}
	if cs.API != nil {
		cs.API.HTTP.CloseIdleConnections()
	}
	if strings.Contains(cs.stderr.String(), "DATA RACE") {
		tb.Errorf("gw serve (pid %d): data race:\n%s", cs.pid, tail(cs.stderr.String(), 8000))
	}
}

var (
	crashProducts = []string{"crash-a", "crash-b", "crash-c"}
	crashLangs    = []string{"en", "de", "pt-BR"}
)

type ackedComment struct {
	ID, Product, Language string
	Rating                int
}

// recountMismatches walks every comment of every product (all pages) and
// compares the recount with stats (per product and per language) and with
// the leaderboard; it returns one line per difference and the comments seen.
func recountMismatches(tb testing.TB, s *Server, pids []string) (problems []string, seen map[string]ackedComment) {
	tb.Helper()
	seen = map[string]ackedComment{}
	type key struct{ pid, lang string }
	counts := map[key]*[6]int{}
	add := func(k key, r int) {
		if counts[k] == nil {
			counts[k] = &[6]int{}
		}
		counts[k][r]++
	}
	for _, pid := range pids {
		var after any
		for {
			var page struct {
				Product struct {
					Comments struct {
						Nodes []struct {
							ID       string `json:"id"`
							Language string `json:"language"`
							Rating   int    `json:"rating"`
						} `json:"nodes"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"comments"`
				} `json:"product"`
			}
			MustQuery(tb, s, `query($pid: ID!, $after: String) { product(id: $pid) { comments(first: 100, after: $after) {
				nodes { id language rating } pageInfo { hasNextPage endCursor } } } }`, map[string]any{"pid": pid, "after": after}, &page)
			for _, n := range page.Product.Comments.Nodes {
				if _, dup := seen[n.ID]; dup {
					problems = append(problems, fmt.Sprintf("comment %s listed twice", n.ID))
				}
				seen[n.ID] = ackedComment{ID: n.ID, Product: pid, Language: n.Language, Rating: n.Rating}
				add(key{pid, ""}, n.Rating)
				add(key{pid, n.Language}, n.Rating)
			}
			if !page.Product.Comments.PageInfo.HasNextPage {
				break
			}
			after = page.Product.Comments.PageInfo.EndCursor
		}
		langs := map[string]bool{"": true}
		for k := range counts {
			if k.pid == pid {
				langs[k.lang] = true
			}
		}
		var st struct {
			Product struct {
				Languages []struct {
					Language string `json:"language"`
				} `json:"languages"`
			} `json:"product"`
		}
		MustQuery(tb, s, `query($pid: ID!) { product(id: $pid) { languages { language } } }`, map[string]any{"pid": pid}, &st)
		for _, l := range st.Product.Languages {
			langs[l.Language] = true
		}
		for lang := range langs {
			var langVar any // null: all languages
			if lang != "" {
				langVar = lang
			}
			var got struct {
				Product struct {
					Stats struct {
						Total   int `json:"total"`
						Ratings []struct {
							Rating int `json:"rating"`
							Count  int `json:"count"`
						} `json:"ratings"`
					} `json:"stats"`
				} `json:"product"`
			}
			MustQuery(tb, s, `query($pid: ID!, $lang: String) { product(id: $pid) { stats(language: $lang) { total ratings { rating count } } } }`,
				map[string]any{"pid": pid, "lang": langVar}, &got)
			want := counts[key{pid, lang}]
			if want == nil {
				want = &[6]int{}
			}
			total := 0
			for r := 1; r <= 5; r++ {
				total += want[r]
			}
			if got.Product.Stats.Total != total {
				problems = append(problems, fmt.Sprintf("%s/%q: stats total %d, recount %d", pid, lang, got.Product.Stats.Total, total))
			}
			for _, rc := range got.Product.Stats.Ratings {
				if rc.Rating >= 1 && rc.Rating <= 5 && rc.Count != want[rc.Rating] {
					problems = append(problems, fmt.Sprintf("%s/%q: stats count of %d-star %d, recount %d", pid, lang, rc.Rating, rc.Count, want[rc.Rating]))
				}
			}
		}
	}
	// the leaderboard: fiveStarCount equals the recount
	var top struct {
		TopProducts []struct {
			FiveStarCount int                 `json:"fiveStarCount"`
			Product       struct{ ID string } `json:"product"`
		} `json:"topProducts"`
	}
	MustQuery(tb, s, `{ topProducts(first: 100) { fiveStarCount product { id } } }`, nil, &top)
	inTop := map[string]int{}
	for _, r := range top.TopProducts {
		inTop[r.Product.ID] = r.FiveStarCount
	}
	for _, pid := range pids {
		want := 0
		if c := counts[key{pid, ""}]; c != nil {
			want = c[5]
		}
		if inTop[pid] != want {
			problems = append(problems, fmt.Sprintf("%s: leaderboard fiveStarCount %d, recount %d", pid, inTop[pid], want))
		}
	}
	return problems, seen
}

// TestKill9DuringMutationsLosesNoAcknowledgedWrite: a served bolt store
// killed (SIGKILL) during a stream of mutations reopens with every
// acknowledged comment, and its stats equal a recount.
func TestKill9DuringMutationsLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	db := filepath.Join(t.TempDir(), "crash.db")
	s := startCrashServer(t, db)

	const workers = 8
	var (
		mu      sync.Mutex
		acked   []ackedComment
		stop    atomic.Bool
		ackedN  atomic.Int64
		other   atomic.Int64 // answers that were neither an ack nor a transport error
		wg      sync.WaitGroup
		killAt  = int64(300 + rand.IntN(200))
		started = time.Now()
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(started.UnixNano())))
			for i := 0; !stop.Load(); i++ {
				in := map[string]any{
					"productId": crashProducts[rng.IntN(len(crashProducts))],
					"language":  crashLangs[rng.IntN(len(crashLangs))],
					"rating":    1 + rng.IntN(5),
					"author":    fmt.Sprintf("w%d", w),
					"title":     fmt.Sprintf("t%d", i),
					"body":      strings.Repeat("b", 1+rng.IntN(500)),
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				r, err := s.Do(ctx, http.MethodPost, hMCreate, map[string]any{"in": in})
				cancel()
				if err != nil {
					if r != nil && r.Status >= 500 {
						t.Errorf("createComment: %v", err)
					}
					// the server is gone (killed): not acknowledged
					if stop.Load() {
						return
					}
					continue
				}
				var data struct {
					CreateComment *struct {
						Comment struct{ ID string } `json:"comment"`
					} `json:"createComment"`
				}
				if r.Status != http.StatusOK || len(r.Errors) > 0 || json.Unmarshal(r.Data, &data) != nil || data.CreateComment == nil || data.CreateComment.Comment.ID == "" {
					other.Add(1)
					continue
				}
				mu.Lock()
				acked = append(acked, ackedComment{ID: data.CreateComment.Comment.ID, Product: in["productId"].(string), Language: in["language"].(string), Rating: in["rating"].(int)})
				mu.Unlock()
				ackedN.Add(1)
			}
		}(w)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for ackedN.Load() < killAt && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s.kill(t) // kill -9 mid-stream, requests in flight
	stop.Store(true)
	wg.Wait()
	mu.Lock()
	ackedCopy := append([]ackedComment(nil), acked...)
	mu.Unlock()
	t.Logf("kill -9 after %d acknowledged creates in %s (%d non-ack answers)", len(ackedCopy), time.Since(started).Round(time.Millisecond), other.Load())
	if other.Load() > 0 {
		t.Errorf("%d createComment answers were errors before the kill", other.Load())
	}

	s2 := startCrashServer(t, db)
	problems, seen := recountMismatches(t, s2.Server, crashProducts)
	for _, p := range problems {
		t.Error(p)
	}
	missing := 0
	for _, a := range ackedCopy {
		got, ok := seen[a.ID]
		if !ok {
			missing++
			if missing <= 20 {
				t.Errorf("acknowledged comment %s (%s/%s/%d) is missing after the restart", a.ID, a.Product, a.Language, a.Rating)
			}
			continue
		}
		if got != a {
			t.Errorf("acknowledged comment %+v reads back as %+v", a, got)
		}
	}
	// and comment(id) finds each one
	for i, a := range ackedCopy {
		if i%10 != 0 && i != len(ackedCopy)-1 {
			continue
		}
		var c struct {
			Comment *struct{ ID string } `json:"comment"`
		}
		MustQuery(t, s2.Server, hQComment, map[string]any{"id": a.ID}, &c)
		if c.Comment == nil || c.Comment.ID != a.ID {
			t.Errorf("comment(id: %q) = %+v after the restart", a.ID, c.Comment)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged comments are missing", missing, len(ackedCopy))
	}
	t.Logf("after the restart: %d comments (%d acknowledged, %d more were written but not acknowledged before the kill)", len(seen), len(ackedCopy), len(seen)-len(ackedCopy))
	// the restarted server takes writes again
	MustQuery(t, s2.Server, hMCreate, map[string]any{"in": with(validCreate(), "productId", crashProducts[0])}, nil)
	if problems, _ := recountMismatches(t, s2.Server, crashProducts); len(problems) > 0 {
		t.Errorf("after one more create: %v", problems)
	}
}

// writeCrashJSONL writes n comments over products pids and returns the file.
func writeCrashJSONL(tb testing.TB, n int, pids []string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		line, _ := json.Marshal(map[string]any{
			"productId": pids[i%len(pids)],
			"language":  crashLangs[rng.IntN(len(crashLangs))],
			"rating":    1 + rng.IntN(5),
			"author":    "importer",
			"title":     fmt.Sprintf("comment %d", i),
			"body":      strings.Repeat("x", 50+rng.IntN(200)),
			"createdAt": t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
		})
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestKill9DuringImportLeavesAConsistentStore: an import killed (SIGKILL)
// mid-load leaves a store that opens and serves; after rebuild-stats its
// stats equal a recount of the comments it holds, and stay so on new
// writes.
func TestKill9DuringImportLeavesAConsistentStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	bin := MustBinary(t)
	pids := []string{"imp-a", "imp-b", "imp-c", "imp-d"}
	const n = 40_000
	file := writeCrashJSONL(t, n, pids)
	db := filepath.Join(t.TempDir(), "import.db")

	cmd := exec.Command(bin, "import", "-store", "bolt:"+db, file)
	cmd.Env = gwEnv("import")
	cmd.Dir = t.TempDir()
	var stderr testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// kill -9 once the file has grown past 40 MiB: bbolt starts at 16 MiB
	// and grows in steps of ~28 MiB while the batches are written, to
	// ~128 MiB for this file, so this is after the first batches and well
	// before the end
	killed := false
	ticker := time.NewTicker(2 * time.Millisecond)
	defer ticker.Stop()
	timeout := time.NewTimer(e2eCommandTimeout)
	defer timeout.Stop()
wait:
	for {
		select {
		case err := <-exited:
			t.Logf("gw import finished before it could be killed (%v, after %s); the store is checked all the same", err, time.Since(start))
			break wait
		case <-ticker.C:
			if fi, err := os.Stat(db); err == nil && fi.Size() > 40<<20 {
				if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
					t.Fatalf("kill -9 %d: %v", cmd.Process.Pid, err)
				}
				<-exited
				killed = true
				t.Logf("kill -9 gw import (pid %d) after %s, store file %d bytes", cmd.Process.Pid, time.Since(start).Round(time.Millisecond), fi.Size())
				break wait
			}
		case <-timeout.C:
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("gw import did not finish within %s", e2eCommandTimeout)
		}
	}
	if strings.Contains(stderr.String(), "DATA RACE") {
		t.Errorf("gw import: data race:\n%s", tail(stderr.String(), 8000))
	}

	// The store opens as it was left. import recounts the stats only at its
	// end, so a killed import leaves comments without stats until
	// rebuild-stats: logged, not an error.
	s0 := startCrashServer(t, db)
	before, seen0 := recountMismatches(t, s0.Server, pids)
	s0.kill(t)
	t.Logf("the killed import left %d comments; before rebuild-stats %d stats differ from the recount (expected: import writes stats last)", len(seen0), len(before))

	// rebuild-stats makes the stats a recount.
	out := MustRun(t, "rebuild-stats", "-store", "bolt:"+db)
	t.Logf("rebuild-stats: %s", strings.TrimSpace(out))
	s := startCrashServer(t, db)
	problems, seen := recountMismatches(t, s.Server, pids)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("after kill -9 (killed=%v) and rebuild-stats: %d of %d comments in the store", killed, len(seen), n)
	if killed && len(seen) == n {
		t.Logf("note: every comment was written before the kill")
	}
	// a new write keeps stats equal to the recount
	MustQuery(t, s.Server, hMCreate, map[string]any{"in": with(validCreate(), "productId", pids[0])}, nil)
	if problems, _ := recountMismatches(t, s.Server, pids); len(problems) > 0 {
		t.Errorf("after one more create: %v", problems)
	}
}
