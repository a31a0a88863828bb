-- The comments table PostGraphile serves in scripts/bench-postgraphile.sh:
-- the gateway's comment attributes as columns, ids compared bytewise (the
-- gateway orders ties of createdAt by id), and one index per ordering the
-- gateway keeps (product; product and language; product and rating; product,
-- language and rating; each newest first, then id).
create schema app;
create table app.comments (
  id text collate "C" primary key,
  product_id text not null,
  language text not null,
  rating int not null check (rating between 1 and 5),
  author text not null,
  title text,
  body text,
  created_at timestamptz not null
);
create unlogged table app.staging (doc jsonb not null);
comment on table app.staging is E'@omit';
