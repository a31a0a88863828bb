// The CDK app: one stack, CommentsGateway (lib/stack.ts). Synthesized
// offline (no lookups): the account and region are the deploying
// credentials' (CDK_DEFAULT_ACCOUNT/REGION) or placeholders for `cdk synth`
// in CI. Context values (cdk synth -c key=value) choose the image, the
// table's name and the sizes; see docs/deploy.md.
import * as cdk from 'aws-cdk-lib';
import { CommentsGatewayStack } from '../lib/stack';

// node dist/bin/app.js synthesizes into cdk.out (CDK_OUTDIR): what `cdk synth`
// does, without a CLI whose version must match aws-cdk-lib's cloud assembly.
const app = new cdk.App({ outdir: process.env.CDK_OUTDIR ?? 'cdk.out' });
new CommentsGatewayStack(app, 'CommentsGateway', {
  env: {
    account: process.env.CDK_DEFAULT_ACCOUNT ?? '123456789012',
    region: process.env.CDK_DEFAULT_REGION ?? 'eu-west-1',
  },
  image: app.node.tryGetContext('image') ?? 'ghcr.io/acme/comments-gateway:latest',
  tableName: app.node.tryGetContext('tableName') ?? 'comments',
  shutdownTimeoutSeconds: Number(app.node.tryGetContext('shutdownTimeoutSeconds') ?? 20),
  certificateArn: app.node.tryGetContext('certificateArn'),
});
app.synth();
