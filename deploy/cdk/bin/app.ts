// The CDK app: one stack, CommentsGateway (lib/stack.ts), synthesized
// offline in CI (no lookups). Context values (cdk synth -c key=value) choose the image, the
// table's name and the sizes; see docs/deploy.md.
import * as cdk from 'aws-cdk-lib';
import { CommentsGatewayStack } from '../lib/stack';

const app = new cdk.App();
new CommentsGatewayStack(app, 'CommentsGateway', {
  // With credentials (cdk deploy), the stack is bound to their account and
  // region; without (CI), it is environment-agnostic, so synth needs no
  // lookup and no network.
  env: process.env.CDK_DEFAULT_ACCOUNT ? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } : undefined,
  image: app.node.tryGetContext('image') ?? 'ghcr.io/acme/comments-gateway:latest',
  tableName: app.node.tryGetContext('tableName') ?? 'comments',
  shutdownTimeoutSeconds: Number(app.node.tryGetContext('shutdownTimeoutSeconds') ?? 20),
  certificateArn: app.node.tryGetContext('certificateArn'),
  moderatorApiKeys: app.node.tryGetContext('moderatorApiKeys') === 'true',
});
app.synth();
