-- bench/dss/schema.sql — a star schema of our own for the decision-support benchmark
-- (scripts/bench-dss.sh): two fact tables (store sales, web sales), their returns, and
-- four dimensions. :scale (a whole number) sets the size: scale 10 makes 10M store sales,
-- 5M web sales, 500k returns, 632k customers and 63k products (the dimensions grow with
-- the square root of the scale), 1000 stores and 2922 days.
-- Every value is generated from the row number, so the data is the same on every run.
-- Skew: products and customers are drawn with a power law (a few are very common).
DROP SCHEMA IF EXISTS dss CASCADE;
CREATE SCHEMA dss;
SET search_path = dss;

CREATE TABLE d_date AS
  SELECT d AS d_id, date '2018-01-01' + d AS d_date, extract(year FROM date '2018-01-01' + d)::int AS d_year,
         extract(month FROM date '2018-01-01' + d)::int AS d_month, extract(isodow FROM date '2018-01-01' + d)::int AS d_dow
  FROM generate_series(0, 2921) d;
CREATE TABLE d_store AS
  SELECT s AS s_id, 'region ' || (s % 7) AS s_region, 'city ' || (s % 97) AS s_city, (s % 5 = 0) AS s_outlet
  FROM generate_series(1, 1000) s;
CREATE TABLE d_product AS
  SELECT p AS p_id, 'category ' || (p % 23) AS p_category, 'brand ' || (p % 1013) AS p_brand,
         ((p * 7919) % 50000) / 100.0 + 1 AS p_price
  FROM generate_series(1, (20000 * sqrt(:scale))::int) p;
CREATE TABLE d_customer AS
  SELECT c AS c_id, (ARRAY['consumer', 'small business', 'corporate', 'public'])[1 + c % 4] AS c_segment,
         'country ' || (c % 61) AS c_country, 'customer' || c || '@example.com' AS c_email, (c % 90) + 18 AS c_age
  FROM generate_series(1, (200000 * sqrt(:scale))::int) c;

-- power-law draws: floor(n * u^3) favours small ids
CREATE TABLE f_sales AS
  SELECT g AS sale_id, ((g * 7) % 2922)::int AS d_id, (1 + (g * 13) % 1000)::int AS s_id,
         1 + floor((SELECT count(*) FROM d_product) * power(((g * 2654435761) % 1000003) / 1000003.0::float8, 3))::int AS p_id,
         1 + floor((SELECT count(*) FROM d_customer) * power(((g * 40503) % 999983) / 999983.0::float8, 2))::int AS c_id,
         (1 + g % 9)::int AS qty, ((g * 31) % 100000) / 100.0 AS amount
  FROM generate_series(1::int8, 1000000 * :scale) g;
CREATE TABLE f_web AS
  SELECT g AS web_id, ((g * 11) % 2922)::int AS d_id,
         1 + floor((SELECT count(*) FROM d_product) * power(((g * 1597334677) % 1000033) / 1000033.0::float8, 3))::int AS p_id,
         1 + floor((SELECT count(*) FROM d_customer) * power(((g * 69069) % 999979) / 999979.0::float8, 2))::int AS c_id,
         (1 + g % 5)::int AS qty, ((g * 37) % 80000) / 100.0 AS amount
  FROM generate_series(1::int8, 500000 * :scale) g;
CREATE TABLE f_returns AS
  SELECT s.sale_id, s.d_id + 1 + (s.sale_id % 30)::int AS d_id, s.c_id, s.p_id, s.amount * 0.9 AS amount
  FROM f_sales s WHERE s.sale_id % 20 = 7;

ALTER TABLE d_date ADD PRIMARY KEY (d_id);
ALTER TABLE d_store ADD PRIMARY KEY (s_id);
ALTER TABLE d_product ADD PRIMARY KEY (p_id);
ALTER TABLE d_customer ADD PRIMARY KEY (c_id);
ALTER TABLE f_sales ADD PRIMARY KEY (sale_id);
ALTER TABLE f_web ADD PRIMARY KEY (web_id);
VACUUM ANALYZE;
