//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// cdkTemplate is the CloudFormation template `npm run synth` in deploy/cdk
// writes (deploy/test.sh runs it before the tests).
var cdkTemplate = filepath.Join(moduleRoot, "deploy", "cdk", "cdk.out", "CommentsGateway.template.json")

// tableShape is what a table definition fixes, in a form both a
// CloudFormation AWS::DynamoDB::Table and a DescribeTable answer give.
type tableShape struct {
	Attributes map[string]string // name → S, N or B
	Keys       [2]string         // hash, range
	Indexes    map[string]indexShape
	Billing    string
	Stream     string // the stream's view type; "" without a stream
}

// cfnKey is a key schema element, as CloudFormation and the API spell it.
type cfnKey struct{ AttributeName, KeyType string }

// keyPair is a key schema as (hash, range).
func keyPair(ks []cfnKey) (k [2]string) {
	for _, e := range ks {
		if e.KeyType == "HASH" {
			k[0] = e.AttributeName
		} else {
			k[1] = e.AttributeName
		}
	}
	return k
}

type indexShape struct {
	Keys       [2]string
	Projection string
	NonKey     []string // sorted
}

// TestCDKTableMatchesCreateTable compares the table the CDK stack defines
// with the one `create-table` creates, read back with DescribeTable from
// DynamoDB Local: attributes, keys, each GSI with its projection, billing
// and stream must be equal, so the two never drift. The stack's production
// settings that create-table leaves to the operator — TTL on the change
// log's expiresAt, point-in-time recovery — must be on.
func TestCDKTableMatchesCreateTable(t *testing.T) {
	client := dynamotest.MustClient(t) // skips without DYNAMODB_ENDPOINT
	b, err := os.ReadFile(cdkTemplate)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no %s: run deploy/test.sh (or `npm ci && npm run synth` in deploy/cdk)", cdkTemplate)
	}
	if err != nil {
		t.Fatal(err)
	}
	synthesized, ttl, pitr := mustCFNTable(t, b)
	if !ttl || !pitr {
		t.Errorf("the CDK table: TTL on expiresAt %v, point-in-time recovery %v; want both on", ttl, pitr)
	}

	table := fmt.Sprintf("cdk-%d-%d", os.Getpid(), time.Now().UnixNano())
	MustRun(t, "create-table", "-store", "dynamodb:"+table)
	t.Cleanup(func() { deleteTable(t, client, table) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Table
	created := tableShape{Attributes: map[string]string{}, Indexes: map[string]indexShape{}}
	for _, a := range d.AttributeDefinitions {
		created.Attributes[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	sdkKeys := func(ks []types.KeySchemaElement) [2]string {
		var l []cfnKey
		for _, k := range ks {
			l = append(l, cfnKey{aws.ToString(k.AttributeName), string(k.KeyType)})
		}
		return keyPair(l)
	}
	created.Keys = sdkKeys(d.KeySchema)
	for _, g := range d.GlobalSecondaryIndexes {
		nonKey := slices.Clone(g.Projection.NonKeyAttributes)
		sort.Strings(nonKey)
		created.Indexes[aws.ToString(g.IndexName)] = indexShape{Keys: sdkKeys(g.KeySchema), Projection: string(g.Projection.ProjectionType), NonKey: nonKey}
	}
	if d.BillingModeSummary != nil {
		created.Billing = string(d.BillingModeSummary.BillingMode)
	}
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		created.Stream = string(s.StreamViewType)
	}
	if !reflect.DeepEqual(synthesized, created) {
		a, _ := json.MarshalIndent(synthesized, "", "  ")
		c, _ := json.MarshalIndent(created, "", "  ")
		t.Errorf("the CDK table differs from create-table's:\nCDK (%s):\n%s\ncreate-table (DescribeTable):\n%s", cdkTemplate, a, c)
	}
}

// mustCFNTable returns the shape of the template's one AWS::DynamoDB::Table
// and whether it has TTL on expiresAt and point-in-time recovery.
func mustCFNTable(t *testing.T, template []byte) (s tableShape, ttl, pitr bool) {
	t.Helper()
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties struct {
				AttributeDefinitions   []struct{ AttributeName, AttributeType string }
				KeySchema              []cfnKey
				GlobalSecondaryIndexes []struct {
					IndexName  string
					KeySchema  []cfnKey
					Projection struct {
						ProjectionType   string
						NonKeyAttributes []string
					}
				}
				BillingMode             string
				StreamSpecification     *struct{ StreamViewType string }
				TimeToLiveSpecification *struct {
					AttributeName string
					Enabled       bool
				}
				PointInTimeRecoverySpecification *struct{ PointInTimeRecoveryEnabled bool }
			}
		}
	}
	if err := json.Unmarshal(template, &tpl); err != nil {
		t.Fatalf("%s: %v", cdkTemplate, err)
	}
	found := 0
	for _, r := range tpl.Resources {
		if r.Type != "AWS::DynamoDB::Table" {
			continue
		}
		found++
		p := r.Properties
		s = tableShape{Attributes: map[string]string{}, Indexes: map[string]indexShape{}, Keys: keyPair(p.KeySchema), Billing: p.BillingMode}
		for _, a := range p.AttributeDefinitions {
			s.Attributes[a.AttributeName] = a.AttributeType
		}
		for _, g := range p.GlobalSecondaryIndexes {
			nonKey := slices.Clone(g.Projection.NonKeyAttributes)
			sort.Strings(nonKey)
			s.Indexes[g.IndexName] = indexShape{Keys: keyPair(g.KeySchema), Projection: g.Projection.ProjectionType, NonKey: nonKey}
		}
		if p.StreamSpecification != nil {
			s.Stream = p.StreamSpecification.StreamViewType
		}
		ttl = p.TimeToLiveSpecification != nil && p.TimeToLiveSpecification.Enabled && p.TimeToLiveSpecification.AttributeName == "expiresAt"
		pitr = p.PointInTimeRecoverySpecification != nil && p.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled
	}
	if found != 1 {
		t.Fatalf("%s defines %d DynamoDB tables, want 1", cdkTemplate, found)
	}
	return s, ttl, pitr
}
