/**
 * The Redis store: {@link dev.archlab.inbox.redis.RedisInboxStore}, built with {@link
 * dev.archlab.inbox.redis.RedisStoreBuilder} and configured by {@link
 * dev.archlab.inbox.redis.RedisSettings}, on one Redis server or a Redis Cluster through Lettuce,
 * with {@link dev.archlab.inbox.redis.RedisInboxAdmin} for operators and {@link
 * dev.archlab.inbox.redis.RedisInboxOperations}, the store-neutral operator interface on it. Every
 * store primitive is one Lua script timed by the server; DONE records expire after the retention; a
 * consumer's records spread over many hash slots. See docs/DESIGN.md §13 for the layout and the
 * durability limits.
 */
package dev.archlab.inbox.redis;
