// The gateway on AWS: the DynamoDB table exactly as `create-table` makes it
// (deploy/dynamodb-table.json, the same definition, plus TTL on the change
// log and point-in-time recovery), an ECS Fargate service behind an
// Application Load Balancer, and a task role whose only rights are
// deploy/iam-policy.json's. docs/deploy.md explains each setting.
import * as fs from 'fs';
import * as path from 'path';
import * as cdk from 'aws-cdk-lib';
import { Construct } from 'constructs';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ssm from 'aws-cdk-lib/aws-ssm';

/** deploy/, where the table definition and the IAM policies are. */
const deployDir = path.resolve(__dirname, '..', '..', '..');

/** The gateway's websocket/SSE keep-alive (-live-keepalive, 15s): the ALB's idle timeout must exceed it. */
const liveKeepAliveSeconds = 15;

export interface CommentsGatewayProps extends cdk.StackProps {
  /** The container image (deploy/cmd/build-image or deploy/Dockerfile), pushed to a registry. */
  image: string;
  /** The DynamoDB table's name (COMMENTS_STORE=dynamodb:NAME). */
  tableName: string;
  /** -shutdown-timeout: the ALB's deregistration delay matches it. */
  shutdownTimeoutSeconds: number;
  /** An ACM certificate for HTTPS on 443; without, HTTP on 80 (put CloudFront or a TLS proxy in front). */
  certificateArn?: string;
  /**
   * Also a Secrets Manager secret of moderator API key hashes
   * (COMMENTS_MODERATOR_API_KEYS, docs/moderation.md); set its value after
   * the first deploy. Without, moderators are JWTs with the moderator role.
   */
  moderatorApiKeys?: boolean;
}

export class CommentsGatewayStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props: CommentsGatewayProps) {
    super(scope, id, props);
    const table = this.table(props.tableName);

    // Environment-agnostic (CI): two zones from Fn::GetAZs, no lookup.
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });

    // The task role: exactly deploy/iam-policy.json, on this table.
    const taskRole = new iam.Role(this, 'TaskRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    for (const statement of policyStatements('iam-policy.json', table.attrArn)) {
      taskRole.addToPolicy(statement);
    }

    // Secrets: the API key hashes in Secrets Manager (set the value after
    // the first deploy), the JWT issuer's JWKS URL in SSM Parameter Store.
    const apiKeys = new secretsmanager.Secret(this, 'ApiKeyHashes', {
      description: 'comments-gateway: comma-separated SHA-256 hex hashes of the API keys (COMMENTS_API_KEYS)',
    });
    const jwksUrl = ssm.StringParameter.fromStringParameterName(this, 'JwksUrl', '/comments-gateway/jwks-url');
    const secrets: Record<string, ecs.Secret> = {
      COMMENTS_API_KEYS: ecs.Secret.fromSecretsManager(apiKeys),
      COMMENTS_JWKS_URL: ecs.Secret.fromSsmParameter(jwksUrl),
    };
    if (props.moderatorApiKeys) {
      const moderatorKeys = new secretsmanager.Secret(this, 'ModeratorApiKeyHashes', {
        description: 'comments-gateway: comma-separated SHA-256 hex hashes of the API keys that may also moderate (COMMENTS_MODERATOR_API_KEYS)',
      });
      secrets.COMMENTS_MODERATOR_API_KEYS = ecs.Secret.fromSecretsManager(moderatorKeys);
    }

    const task = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: 1024,
      memoryLimitMiB: 2048,
      taskRole,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    task.addContainer('gateway', {
      image: ecs.ContainerImage.fromRegistry(props.image),
      command: ['serve'],
      readonlyRootFilesystem: true,
      user: '65532:65532',
      portMappings: [{ containerPort: 8080, name: 'http' }, { containerPort: 9090, name: 'metrics' }],
      environment: {
        COMMENTS_STORE: `dynamodb:${table.ref}`,
        AWS_REGION: this.region,
        COMMENTS_SHUTDOWN_TIMEOUT: `${props.shutdownTimeoutSeconds}s`,
        COMMENTS_TRUST_FORWARDED_FOR: 'true',
        COMMENTS_LIVE_KEEPALIVE: `${liveKeepAliveSeconds}s`,
        GOMEMLIMIT: '1800MiB',
      },
      secrets,
      // ECS sends SIGTERM after the ALB drained the task; the gateway then
      // has -shutdown-timeout, and SIGKILL comes only after stopTimeout.
      stopTimeout: cdk.Duration.seconds(props.shutdownTimeoutSeconds + 10),
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'gateway', logRetention: logs.RetentionDays.ONE_MONTH }),
    });

    const service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition: task,
      desiredCount: 2,
      minHealthyPercent: 100, // roll out by adding new tasks first
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      healthCheckGracePeriod: cdk.Duration.seconds(30),
    });

    const alb = new elbv2.ApplicationLoadBalancer(this, 'Alb', {
      vpc,
      internetFacing: true,
      idleTimeout: cdk.Duration.seconds(4 * liveKeepAliveSeconds),
    });
    const listener = props.certificateArn
      ? alb.addListener('Https', { port: 443, certificates: [elbv2.ListenerCertificate.fromArn(props.certificateArn)] })
      : alb.addListener('Http', { port: 80 });
    const target = listener.addTargets('Gateway', {
      port: 8080,
      protocol: elbv2.ApplicationProtocol.HTTP,
      targets: [service.loadBalancerTarget({ containerName: 'gateway', containerPort: 8080 })],
      healthCheck: { path: '/readyz', interval: cdk.Duration.seconds(10), timeout: cdk.Duration.seconds(3), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
      deregistrationDelay: cdk.Duration.seconds(props.shutdownTimeoutSeconds),
    });

    const scaling = service.autoScaleTaskCount({ minCapacity: 2, maxCapacity: 20 });
    scaling.scaleOnCpuUtilization('Cpu', { targetUtilizationPercent: 60 });
    scaling.scaleOnRequestCount('Requests', { requestsPerTarget: 3000, targetGroup: target });

    new cdk.CfnOutput(this, 'Url', { value: `${props.certificateArn ? 'https' : 'http'}://${alb.loadBalancerDnsName}/graphql` });
    new cdk.CfnOutput(this, 'TableName', { value: table.ref });
  }

  /** The table as deploy/dynamodb-table.json (create-table's input) defines it. */
  private table(tableName: string): dynamodb.CfnTable {
    const def = JSON.parse(fs.readFileSync(path.join(deployDir, 'dynamodb-table.json'), 'utf8'));
    const keys = (ks: { AttributeName: string; KeyType: string }[]) => ks.map((k) => ({ attributeName: k.AttributeName, keyType: k.KeyType }));
    const table = new dynamodb.CfnTable(this, 'Table', {
      tableName,
      billingMode: def.BillingMode,
      attributeDefinitions: def.AttributeDefinitions.map((a: { AttributeName: string; AttributeType: string }) => ({
        attributeName: a.AttributeName,
        attributeType: a.AttributeType,
      })),
      keySchema: keys(def.KeySchema),
      globalSecondaryIndexes: def.GlobalSecondaryIndexes.map(
        (g: { IndexName: string; KeySchema: { AttributeName: string; KeyType: string }[]; Projection: { ProjectionType: string; NonKeyAttributes?: string[] } }) => ({
          indexName: g.IndexName,
          keySchema: keys(g.KeySchema),
          projection: { projectionType: g.Projection.ProjectionType, nonKeyAttributes: g.Projection.NonKeyAttributes },
        }),
      ),
      streamSpecification: { streamViewType: def.StreamSpecification.StreamViewType },
      // The live change log's items carry expiresAt (docs/live.md).
      timeToLiveSpecification: { attributeName: 'expiresAt', enabled: true },
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    });
    table.applyRemovalPolicy(cdk.RemovalPolicy.RETAIN);
    return table;
  }
}

/** The statements of the IAM policy document deploy/FILE, TABLE_ARN replaced by tableArn. */
function policyStatements(file: string, tableArn: string): iam.PolicyStatement[] {
  const doc = JSON.parse(fs.readFileSync(path.join(deployDir, file), 'utf8'));
  return doc.Statement.map(
    (s: { Sid: string; Effect: string; Action: string[]; Resource: string[] }) =>
      new iam.PolicyStatement({
        sid: s.Sid,
        effect: iam.Effect.ALLOW,
        actions: s.Action,
        resources: s.Resource.map((r) => r.replace('TABLE_ARN', tableArn)),
      }),
  );
}
