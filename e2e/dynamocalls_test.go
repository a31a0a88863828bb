//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// dynamoCalls records the IAM action of every DynamoDB and DynamoDB Streams
// call the gateway's processes make, by command, for the IAM test
// (TestIAMPoliciesGrantExactlyTheCallsMade): with DYNAMODB_ENDPOINT set,
// gwEnv points the processes at a proxy in this test process that forwards
// to the endpoint and reads each request's X-Amz-Target
// ("DynamoDB_20120810.Query", "DynamoDBStreams_20120810.GetRecords"), and
// names the command in the SDK's user agent (AWS_SDK_UA_APP_ID, sent as
// "app/gw-COMMAND"). The action is the operation's name, but for a
// transaction: IAM authorizes each of its items by the action of the
// single-item operation (a Put needs dynamodb:PutItem, a ConditionCheck
// dynamodb:ConditionCheckItem), never by the transaction's name.
var dynamoCalls struct {
	once sync.Once
	url  string // the proxy's; "" when it could not start
	mu   sync.Mutex
	seen map[string]map[string]int // command → action → calls
}

var appIDRE = regexp.MustCompile(`\bapp/gw-([a-z-]+)`)

// dynamoProxyURL starts the recording proxy to endpoint on first use and
// returns its URL ("" when it could not listen: the processes then use the
// endpoint directly and nothing is recorded).
func dynamoProxyURL(endpoint string) string {
	dynamoCalls.once.Do(func() {
		target, err := url.Parse(endpoint)
		if err != nil {
			return
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return
		}
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.ErrorLog = log.New(io.Discard, "", 0) // a cancelled long poll at shutdown
		// Keep a connection per concurrent call (the default transport keeps
		// two idle per host: a parallel suite would dial for most calls).
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 512, 512
		proxy.Transport = tr
		dynamoCalls.seen = map[string]map[string]int{}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			recordDynamoCall(r)
			proxy.ServeHTTP(w, r)
		})}
		go srv.Serve(ln) // lives as long as the test process
		dynamoCalls.url = "http://" + ln.Addr().String()
	})
	return dynamoCalls.url
}

func recordDynamoCall(r *http.Request) {
	_, op, ok := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
	if !ok {
		return
	}
	actions := []string{op}
	if op == "TransactWriteItems" {
		actions = transactionActions(r)
	}
	cmd := "unknown"
	if m := appIDRE.FindStringSubmatch(r.Header.Get("User-Agent") + " " + r.Header.Get("X-Amz-User-Agent")); m != nil {
		cmd = m[1]
	}
	dynamoCalls.mu.Lock()
	defer dynamoCalls.mu.Unlock()
	if dynamoCalls.seen[cmd] == nil {
		dynamoCalls.seen[cmd] = map[string]int{}
	}
	for _, a := range actions {
		dynamoCalls.seen[cmd][a]++
	}
}

// transactionActions reads a TransactWriteItems request's body (and puts
// it back for the proxy) and returns the actions its items need.
func transactionActions(r *http.Request) []string {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var in struct {
		TransactItems []map[string]json.RawMessage
	}
	if err != nil || json.Unmarshal(body, &in) != nil {
		return []string{"TransactWriteItems (unreadable)"}
	}
	var actions []string
	for _, item := range in.TransactItems {
		for kind := range item {
			switch kind {
			case "ConditionCheck":
				actions = append(actions, "ConditionCheckItem")
			default: // Put, Update, Delete
				actions = append(actions, kind+"Item")
			}
		}
	}
	return actions
}

// recordedDynamoCalls returns the operations each command called so far,
// sorted.
func recordedDynamoCalls() map[string][]string {
	dynamoCalls.mu.Lock()
	defer dynamoCalls.mu.Unlock()
	out := map[string][]string{}
	for cmd, ops := range dynamoCalls.seen {
		for op := range ops {
			out[cmd] = append(out[cmd], op)
		}
		sort.Strings(out[cmd])
	}
	return out
}

// dynamoEnv is the part of a gateway process's environment that routes its
// DynamoDB calls through the recording proxy, naming command.
func dynamoEnv(command string) []string {
	ep := os.Getenv("DYNAMODB_ENDPOINT")
	if ep == "" {
		return nil
	}
	u := dynamoProxyURL(ep)
	if u == "" {
		u = ep
	}
	return []string{"AWS_ENDPOINT_URL_DYNAMODB=" + u, "AWS_SDK_UA_APP_ID=gw-" + command}
}
