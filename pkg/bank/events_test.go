package bank

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/auth"
	"meridian/pkg/db"
	"meridian/pkg/errs"
	"meridian/pkg/pgembed"
	"meridian/pkg/testdb"
)

var discard = slog.New(slog.DiscardHandler)

// insertAudit writes one audit row in tx and returns its id.
func insertAudit(t testing.TB, tx sqlx.QueryerContext, desc string) int64 {
	t.Helper()
	var id int64
	if err := sqlx.GetContext(ctx, tx, &id, `INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'test', $1) RETURNING id`, desc); err != nil {
		t.Fatal(err)
	}
	return id
}

// A row that commits after a row with a higher id is still delivered, in
// commit order. Following "id > last" skips it for good.
func TestFollowDeliversRowsInCommitOrderNotIDOrder(t *testing.T) {
	t.Parallel()
	s := newService(t)
	user := newCustomer(t, s, "Olga Order")
	_, last, err := s.AuditTail(ctx, CLIActor, 1000) // the registration and sign-in
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	collect := func(rows []AuditRow) error {
		for _, r := range rows {
			got = append(got, r.ID)
		}
		return nil
	}
	notifHead, err := s.NotificationFeedHead(ctx)
	if err != nil {
		t.Fatal(err)
	}

	early := s.db.MustBegin() // takes the lower ids, commits last
	idEarly := insertAudit(t, early, "early")
	var notifEarly int64
	early.Get(&notifEarly, `INSERT INTO notifications (user_id, message) VALUES ($1, 'early') RETURNING id`, user.UserID)
	late := s.db.MustBegin()
	idLate := insertAudit(t, late, "late")
	var notifLate int64
	late.Get(&notifLate, `INSERT INTO notifications (user_id, message) VALUES ($1, 'late') RETURNING id`, user.UserID)
	if idLate <= idEarly || notifLate <= notifEarly {
		t.Fatalf("ids %d, %d", idEarly, idLate)
	}
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.followRound(ctx, &last, collect); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int64{idLate}) {
		t.Fatalf("after the later id committed: delivered %v, want [%d]", got, idLate)
	}
	feed, err := s.NotificationsAfter(ctx, notifHead, 100)
	if err != nil || len(feed) != 1 || feed[0].ID != notifLate {
		t.Fatalf("notification feed %+v %v", feed, err)
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.followRound(ctx, &last, collect); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int64{idLate, idEarly}) {
		t.Fatalf("after the earlier id committed: delivered %v, want [%d %d]", got, idLate, idEarly)
	}
	feed, err = s.NotificationsAfter(ctx, feed[0].Seq, 100)
	if err != nil || len(feed) != 1 || feed[0].ID != notifEarly {
		t.Fatalf("notification feed after the late commit %+v %v", feed, err)
	}
	if err := s.followRound(ctx, &last, collect); err != nil || len(got) != 2 {
		t.Fatalf("a third round delivered again: %v %v", got, err)
	}
}

// Sixteen writers commit out of id order while a follower runs, and
// PostgreSQL restarts in the middle: the follower delivers every row exactly
// once, in seal order. The test runs its own cluster, which it restarts.
func TestAuditFollowUnderConcurrencyAndRestart(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "mevt")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	opts := pgembed.Options{DataDir: dir, Database: "meridian", Fast: true, Logger: discard}
	cluster, err := pgembed.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Stop() })
	conn, err := db.Open(ctx, cluster.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := db.Up(ctx, conn, 0); err != nil {
		t.Fatal(err)
	}
	tokens, _ := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	s := New(conn, tokens, Settings{})

	var mu sync.Mutex
	var delivered []int64
	fctx, stopFollow := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() {
		followed <- s.AuditFollow(fctx, CLIActor, FollowOptions{DSN: cluster.URL(), Poll: 20 * time.Millisecond, Log: discard}, func(rows []AuditRow) error {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rows {
				delivered = append(delivered, r.ID)
			}
			return nil
		})
	}()

	// Writers hold their transaction open for a random while after the
	// insert, so rows commit out of id order.
	var stop atomic.Bool
	var commitMu sync.Mutex
	var maxCommitted int64
	var outOfOrder, committed int
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for !stop.Load() {
				tx, err := conn.BeginTxx(ctx, nil)
				if err != nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				var id int64
				if err := tx.Get(&id, `INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'test', $1) RETURNING id`, "writer "+strconv.Itoa(w)); err != nil {
					tx.Rollback()
					time.Sleep(50 * time.Millisecond)
					continue
				}
				time.Sleep(time.Duration(rng.IntN(15)) * time.Millisecond)
				if err := tx.Commit(); err != nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				commitMu.Lock()
				committed++
				if id < maxCommitted {
					outOfOrder++
				}
				maxCommitted = max(maxCommitted, id)
				commitMu.Unlock()
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	mu.Lock()
	before := len(delivered)
	mu.Unlock()
	if before == 0 {
		t.Fatal("nothing delivered before the restart")
	}
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cluster, err = pgembed.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Stop() })
	time.Sleep(1500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	var want []int64 // every row in the table, in seal order
	deadline := time.Now().Add(20 * time.Second)
	for {
		var total int
		if err := conn.Get(&total, `SELECT count(*) FROM audit_log`); err == nil {
			mu.Lock()
			n := len(delivered)
			mu.Unlock()
			if n >= total {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower delivered %d rows of %d", len(delivered), total)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // room for a duplicate to show up
	stopFollow()
	if err := <-followed; err != nil {
		t.Fatalf("follow: %v", err)
	}
	if err := conn.Select(&want, `SELECT audit_id FROM audit_chain ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	var all []int64
	conn.Select(&all, `SELECT id FROM audit_log ORDER BY id`)
	seen := map[int64]int{}
	for _, id := range delivered {
		seen[id]++
		if seen[id] > 1 {
			t.Fatalf("row %d delivered twice", id)
		}
	}
	for _, id := range all {
		if seen[id] != 1 {
			t.Fatalf("row %d delivered %d times", id, seen[id])
		}
	}
	if !slices.Equal(delivered, want) {
		t.Fatal("rows were not delivered in seal order")
	}
	if outOfOrder == 0 {
		t.Fatalf("no commit happened out of id order in %d commits: the test proves nothing", committed)
	}
	t.Logf("%d commits (%d out of id order), %d rows delivered once each, %d of them before the restart", committed, outOfOrder, len(delivered), before)
}

// Concurrent sealers never seal a row twice, and the chain has no gap.
func TestConcurrentSeals(t *testing.T) {
	t.Parallel()
	s := newService(t)
	var stop atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := s.Seal(ctx); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	var writers sync.WaitGroup
	for w := range 8 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := range 40 {
				if _, err := s.db.Exec(`INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'test', $1)`, fmt.Sprintf("w%d-%d", w, i)); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	writers.Wait()
	stop.Store(true)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if _, err := s.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	var n, maxSeq, rows int
	s.db.Get(&n, `SELECT count(*) FROM audit_chain`)
	s.db.Get(&maxSeq, `SELECT max(seq) FROM audit_chain`)
	s.db.Get(&rows, `SELECT count(*) FROM audit_log`)
	if n != rows || maxSeq != rows {
		t.Fatalf("chain: %d links, max seq %d, %d rows", n, maxSeq, rows)
	}
	rep, err := s.VerifyAuditChain(ctx, CLIActor)
	if err != nil || !rep.OK {
		t.Fatalf("verify %+v %v", rep, err)
	}
}

// A commit pokes the sealer: the row is sealed long before the interval.
func TestRunSealerSealsAfterCommit(t *testing.T) {
	t.Parallel()
	s := newService(t)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.RunSealer(rctx, time.Hour, discard)
	time.Sleep(300 * time.Millisecond) // the first seal, at start, is done
	a := newCustomer(t, s, "Pia Poke")
	var id int64
	s.db.Get(&id, `SELECT max(id) FROM audit_log WHERE actor_user_id = $1`, a.UserID)
	for i := 0; ; i++ {
		var sealed bool
		s.db.Get(&sealed, `SELECT EXISTS (SELECT 1 FROM audit_chain WHERE audit_id = $1)`, id)
		if sealed {
			break
		}
		if i == 100 {
			t.Fatal("the sign-in's audit row was not sealed within 1 s of its commit")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The chain's digest is the documented encoding (migrations/0004): an
// independent implementation gives the same hashes.
func TestAuditChainDigestFormat(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Hana Hash")
	if _, err := s.db.Exec(`INSERT INTO audit_log (actor_user_id, account_number, action_type, table_name, description, created_at)
		VALUES ($1, 'ACC123456', 'TEST', 'test', E'tab\there, é', '2026-03-04 05:06:07.891234+00')`, a.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Hash    []byte    `db:"hash"`
		ID      int64     `db:"id"`
		Actor   *int64    `db:"actor_user_id"`
		Account *string   `db:"account_number"`
		Action  string    `db:"action_type"`
		Table   string    `db:"table_name"`
		Desc    string    `db:"description"`
		Created time.Time `db:"created_at"`
	}
	if err := s.db.Select(&rows, `SELECT c.hash, l.id, l.actor_user_id, l.account_number, l.action_type, l.table_name, l.description, l.created_at
		FROM audit_chain c JOIN audit_log l ON l.id = c.audit_id ORDER BY c.seq`); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 {
		t.Fatalf("only %d links", len(rows))
	}
	field := func(b *bytes.Buffer, v *string) {
		if v == nil {
			binary.Write(b, binary.BigEndian, int32(-1))
			return
		}
		binary.Write(b, binary.BigEndian, int32(len(*v)))
		b.WriteString(*v)
	}
	prev := make([]byte, 32)
	for _, r := range rows {
		var b bytes.Buffer
		b.Write(prev)
		binary.Write(&b, binary.BigEndian, r.ID)
		var actor *string
		if r.Actor != nil {
			v := strconv.FormatInt(*r.Actor, 10)
			actor = &v
		}
		field(&b, actor)
		field(&b, r.Account)
		field(&b, &r.Action)
		field(&b, &r.Table)
		field(&b, &r.Desc)
		binary.Write(&b, binary.BigEndian, r.Created.UnixMicro())
		sum := sha256.Sum256(b.Bytes())
		if !bytes.Equal(sum[:], r.Hash) {
			t.Fatalf("row %d: chain hash %x, recomputed %x", r.ID, r.Hash, sum)
		}
		prev = sum[:]
	}
}

// asOwner runs statements with the append-only triggers off, as only the
// database owner can: what an attacker with the owner's password could do.
func asOwner(t *testing.T, s *Service, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// auditIDs returns the sealed audit ids in seal order.
func auditIDs(t *testing.T, s *Service) []int64 {
	t.Helper()
	if _, err := s.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := s.db.Select(&ids, `SELECT audit_id FROM audit_chain ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	return ids
}

// chainWithRows returns a service whose audit log holds at least five sealed rows.
func chainWithRows(t *testing.T) (*Service, []int64) {
	t.Helper()
	s := newService(t)
	for range 3 {
		newCustomer(t, s, "Vera Verify")
	}
	ids := auditIDs(t, s)
	if len(ids) < 5 {
		t.Fatalf("only %d rows", len(ids))
	}
	return s, ids
}

func wantBad(t *testing.T, s *Service, firstBad, verifiedThrough int64, problem string) {
	t.Helper()
	rep, err := s.VerifyAuditChain(ctx, CLIActor)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || rep.FirstBadID == nil || *rep.FirstBadID != firstBad || rep.Problem != problem ||
		rep.VerifiedThrough == nil || *rep.VerifiedThrough != verifiedThrough {
		t.Fatalf("verify: %+v (first bad %v, through %v); want first bad %d (%s), through %d", rep, deref(rep.FirstBadID), deref(rep.VerifiedThrough), firstBad, problem, verifiedThrough)
	}
	if !strings.Contains(rep.Sentence(), strconv.FormatInt(firstBad, 10)) {
		t.Fatalf("sentence %q does not name row %d", rep.Sentence(), firstBad)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestVerifyAuditChainIntact(t *testing.T) {
	t.Parallel()
	s := newService(t)
	rep, err := s.VerifyAuditChain(ctx, CLIActor)
	if err != nil || !rep.OK || rep.VerifiedThrough != nil || rep.FirstBadID != nil {
		t.Fatalf("empty log: %+v %v", rep, err)
	}
	s, ids := chainWithRows(t)
	rep, err = s.VerifyAuditChain(ctx, CLIActor)
	if err != nil || !rep.OK || rep.FirstBadID != nil || rep.VerifiedThrough == nil || *rep.VerifiedThrough != ids[len(ids)-1] {
		t.Fatalf("fresh chain: %+v %v", rep, err)
	}
	a := newCustomer(t, s, "Ned New")
	_, err = s.VerifyAuditChain(ctx, a)
	wantKind(t, err, errs.Forbidden, "admin_only")
}

func TestVerifyAuditChainFindsAChangedRow(t *testing.T) {
	t.Parallel()
	s, ids := chainWithRows(t)
	asOwner(t, s,
		`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`,
		fmt.Sprintf(`UPDATE audit_log SET description = description || ' (edited)' WHERE id = %d`, ids[2]),
		`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete`)
	wantBad(t, s, ids[2], ids[1], ChainChanged)
}

func TestVerifyAuditChainFindsADeletedRow(t *testing.T) {
	t.Parallel()
	s, ids := chainWithRows(t)
	asOwner(t, s,
		`ALTER TABLE audit_log DISABLE TRIGGER ALL`, // the append-only trigger and the chain's foreign key
		fmt.Sprintf(`DELETE FROM audit_log WHERE id = %d`, ids[3]),
		`ALTER TABLE audit_log ENABLE TRIGGER ALL`)
	wantBad(t, s, ids[3], ids[2], ChainMissing)
}

func TestVerifyAuditChainFindsARemovedLink(t *testing.T) {
	t.Parallel()
	s, ids := chainWithRows(t)
	asOwner(t, s,
		`ALTER TABLE audit_chain DISABLE TRIGGER ALL`,
		`ALTER TABLE audit_log DISABLE TRIGGER ALL`,
		fmt.Sprintf(`DELETE FROM audit_chain WHERE audit_id = %d`, ids[1]),
		fmt.Sprintf(`DELETE FROM audit_log WHERE id = %d`, ids[1]),
		`ALTER TABLE audit_log ENABLE TRIGGER ALL`,
		`ALTER TABLE audit_chain ENABLE TRIGGER ALL`)
	wantBad(t, s, ids[2], ids[0], ChainBroken)
}

func TestVerifyAuditChainFindsACutEnd(t *testing.T) {
	t.Parallel()
	s, ids := chainWithRows(t)
	last := ids[len(ids)-1]
	asOwner(t, s,
		`ALTER TABLE audit_chain DISABLE TRIGGER ALL`,
		`ALTER TABLE audit_log DISABLE TRIGGER ALL`,
		fmt.Sprintf(`DELETE FROM audit_chain WHERE audit_id = %d`, last),
		fmt.Sprintf(`DELETE FROM audit_log WHERE id = %d`, last),
		`ALTER TABLE audit_log ENABLE TRIGGER ALL`,
		`ALTER TABLE audit_chain ENABLE TRIGGER ALL`)
	wantBad(t, s, last, ids[len(ids)-2], ChainTruncated)
}

// A row written with a forged, old transaction id would never be sealed.
func TestVerifyAuditChainFindsAnUnsealedRow(t *testing.T) {
	t.Parallel()
	s, ids := chainWithRows(t)
	var forged int64
	if err := s.db.Get(&forged, `INSERT INTO audit_log (action_type, table_name, description, txid) VALUES ('TEST', 'test', 'forged', '3') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	wantBad(t, s, forged, ids[len(ids)-1], ChainUnsealed)
}

// A link of the audit chain and an entry of the notification feed that no
// seal wrote, at the very next seq (as a runtime role could insert one
// before it lost the right): the sealer does not stall on them (it did,
// on a duplicate key, for good), seals on after them, counts them once, and
// verify names the foreign link.
func TestSealerRecoversFromForeignLinks(t *testing.T) {
	t.Parallel()
	s, ids := chainWithRows(t)
	var head, feedHead, forgedAudit, forgedNote int64
	s.db.Get(&head, `SELECT audit_seq FROM event_sealer`)
	s.db.Get(&feedHead, `SELECT notif_seq FROM event_sealer`)
	if err := s.db.Get(&forgedAudit, `INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'test', 'forged') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Get(&forgedNote, `INSERT INTO notifications (user_id, message) VALUES (1, 'forged') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	asOwner(t, s,
		fmt.Sprintf(`INSERT INTO audit_chain (seq, audit_id, hash) VALUES (%d, %d, sha256('forged'))`, head+1, forgedAudit),
		fmt.Sprintf(`INSERT INTO notification_feed (seq, notification_id) VALUES (%d, %d)`, feedHead+1, forgedNote))
	later := newCustomer(t, s, "Lena Later")
	if err := notify(ctx, s.db, later.UserID, "sealed after the foreign entry"); err != nil {
		t.Fatal(err)
	}
	sealed, err := s.Seal(ctx)
	if err != nil {
		t.Fatalf("the seal after a foreign link: %v", err)
	}
	if sealed.ForeignLinks != 2 || s.SealerForeignLinks() != 2 {
		t.Fatalf("seal %+v (counted %d): want the two foreign links found", sealed, s.SealerForeignLinks())
	}
	if again, err := s.Seal(ctx); err != nil || again.ForeignLinks != 0 {
		t.Fatalf("the next seal: %+v %v; want nothing foreign any more", again, err)
	}
	var unsealed int
	s.db.Get(&unsealed, `SELECT count(*) FROM audit_log l WHERE NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.audit_id = l.id)`)
	if unsealed != 0 {
		t.Fatalf("%d audit rows left unsealed", unsealed)
	}
	feed, err := s.NotificationsAfter(ctx, feedHead+1, 100)
	if err != nil || len(feed) != 1 || feed[0].Seq != feedHead+2 || feed[0].UserID != later.UserID {
		t.Fatalf("the feed after the foreign entry: %+v %v", feed, err)
	}
	wantBad(t, s, forgedAudit, ids[len(ids)-1], ChainChanged)
}

// event_seal runs as the chain's owner (SECURITY DEFINER) with a
// search_path that ends with pg_temp: a temporary table of the caller's
// named like one of its tables is never read in its place. (With pg_temp
// searched first, as it is unless named last, a runtime role's temporary
// event_sealer made the real chain jump to seq 1001.)
func TestSealIgnoresTheCallersTemporaryTables(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	app, err := db.Open(ctx, testdb.AppURL(url))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	conn, err := app.Connx(ctx) // temporary tables live in one session
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		`CREATE TEMPORARY TABLE event_sealer (LIKE public.event_sealer)`,
		`INSERT INTO pg_temp.event_sealer SELECT id, audit_horizon, 1000, audit_hash, audit_last_id, notif_horizon, 1000, sealed_at FROM public.event_sealer`,
		`INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'test', 'sealed by the caller')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var before int64
	if err := conn.GetContext(ctx, &before, `SELECT audit_seq FROM public.event_sealer`); err != nil {
		t.Fatal(err)
	}
	var seq int64
	if err := conn.GetContext(ctx, &seq, `SELECT audit_seq FROM event_seal()`); err != nil {
		t.Fatal(err)
	}
	if seq != before+1 {
		t.Fatalf("the seal numbered up to %d; the chain's head was %d: it read the caller's table", seq, before)
	}
}

func TestSealedTablesAreAppendOnly(t *testing.T) {
	t.Parallel()
	s, _ := chainWithRows(t)
	s.db.Exec(`INSERT INTO notifications (user_id, message) SELECT id, 'x' FROM users LIMIT 1`)
	if _, err := s.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE audit_chain SET hash = hash WHERE seq = 1`,
		`DELETE FROM audit_chain WHERE seq = 1`,
		`TRUNCATE audit_chain CASCADE`,
		`UPDATE notification_feed SET seq = seq WHERE seq = 1`,
		`DELETE FROM notification_feed WHERE seq = 1`,
		`TRUNCATE notification_feed`,
		`DELETE FROM event_sealer`,
		`TRUNCATE event_sealer`,
	} {
		if _, err := s.db.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v; want it refused", q, err)
		}
	}
}

// The sealer refuses to run inside a REPEATABLE READ transaction, whose
// frozen snapshot would hide the previous seal.
func TestSealRefusesRepeatableRead(t *testing.T) {
	t.Parallel()
	s := newService(t)
	tx := s.db.MustBegin()
	defer tx.Rollback()
	tx.MustExec(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`)
	if _, err := tx.Exec(`SELECT * FROM event_seal()`); err == nil || !strings.Contains(err.Error(), "READ COMMITTED") {
		t.Fatalf("event_seal in REPEATABLE READ: %v", err)
	}
}

// A seal returns the notifications it added to the feed, for the hub of the
// same process, and nothing when there is nothing new.
func TestSealReturnsWhatItSealed(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Rita Return")
	if _, err := s.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, m := range []string{"one", "two"} {
		var id int64
		if err := s.db.Get(&id, `INSERT INTO notifications (user_id, message) VALUES ($1, $2) RETURNING id`, a.UserID, m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	got, err := s.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notifications) != 2 || got.Notifications[0].ID != ids[0] || got.Notifications[1].ID != ids[1] ||
		got.Notifications[1].Seq != got.NotificationSeq || got.Notifications[0].Seq != got.NotificationSeq-1 ||
		got.Notifications[0].Message != "one" || got.Notifications[0].UserID != a.UserID || got.Notifications[0].CreatedAt.IsZero() {
		t.Fatalf("sealed %+v", got)
	}
	feed, err := s.NotificationsAfter(ctx, got.NotificationSeq-2, 10)
	if err != nil || len(feed) != 2 || !feed[0].CreatedAt.Equal(got.Notifications[0].CreatedAt) {
		t.Fatalf("the feed %+v disagrees with the seal %+v: %v", feed, got.Notifications, err)
	}
	again, err := s.Seal(ctx)
	if err != nil || len(again.Notifications) != 0 || again.NotificationSeq != got.NotificationSeq {
		t.Fatalf("a second seal: %+v %v", again, err)
	}
}

// Rows written before migration 0004 are sealed by the migration itself.
func TestMigrationSealsExistingRows(t *testing.T) {
	t.Parallel()
	s := newService(t)
	for {
		st, err := db.Status(ctx, s.db)
		if err != nil {
			t.Fatal(err)
		}
		newest := 0
		for _, m := range st {
			if m.Applied && !m.Function {
				newest = m.Version
			}
		}
		if newest < 4 {
			break
		}
		if _, err := db.Down(ctx, s.db, 1); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		s.db.MustExec(`INSERT INTO audit_log (action_type, table_name, description) VALUES ('OLD', 'test', $1)`, fmt.Sprint("before ", i))
	}
	if _, err := db.Up(ctx, s.db, 0); err != nil {
		t.Fatal(err)
	}
	var sealed int
	s.db.Get(&sealed, `SELECT count(*) FROM audit_chain c JOIN audit_log l ON l.id = c.audit_id WHERE l.action_type = 'OLD'`)
	if sealed != 5 {
		t.Fatalf("%d of the 5 older rows sealed by the migration", sealed)
	}
	rep, err := s.VerifyAuditChain(ctx, CLIActor)
	if err != nil || !rep.OK {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

func TestParseSealed(t *testing.T) {
	if s, ok := ParseSealed("12/34"); !ok || s.NotificationSeq != 12 || s.AuditSeq != 34 {
		t.Fatal(s, ok)
	}
	for _, bad := range []string{"", "12", "a/1", "1/b"} {
		if _, ok := ParseSealed(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
