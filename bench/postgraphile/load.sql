-- Moves the JSON lines copied into app.staging into app.comments, then
-- builds the indexes and the planner's statistics.
insert into app.comments
select doc->>'id', doc->>'productId', doc->>'language', (doc->>'rating')::int,
       doc->>'author', doc->>'title', doc->>'body', (doc->>'createdAt')::timestamptz
from app.staging;
drop table app.staging;
create index comments_product on app.comments (product_id, created_at desc, id desc);
create index comments_product_language on app.comments (product_id, language, created_at desc, id desc);
create index comments_product_rating on app.comments (product_id, rating, created_at desc, id desc);
create index comments_product_language_rating on app.comments (product_id, language, rating, created_at desc, id desc);
vacuum analyze app.comments;
