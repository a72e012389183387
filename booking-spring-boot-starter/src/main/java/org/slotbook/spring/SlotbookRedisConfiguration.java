package org.slotbook.spring;

import java.net.URI;
import java.time.Duration;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.redis.RedisSeatReservation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * The Redis seat gate, with a Jedis pool of its own, when {@code slotbook.redis.url} is set or Spring
 * Boot has Redis connection details ({@code spring.data.redis.*}); off with {@code slotbook.redis.enabled=false}.
 * Only the Jedis API common to Jedis 6, 7 and 8 is used.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"org.slotbook.redis.RedisSeatReservation", "redis.clients.jedis.UnifiedJedis"})
@ConditionalOnProperty(prefix = "slotbook.redis", name = "enabled", matchIfMissing = true)
@Conditional(SlotbookRedisConfiguration.RedisConfigured.class)
class SlotbookRedisConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "slotbookJedis")
    UnifiedJedis slotbookJedis(SlotbookProperties properties, BeanFactory beans) {
        SlotbookProperties.Redis redis = properties.redis();
        int timeout = Math.toIntExact(redis.timeout().toMillis());
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeout).socketTimeoutMillis(timeout).clientName("slotbook");
        HostAndPort address;
        if (redis.url() != null && !redis.url().isBlank()) {
            URI uri = URI.create(redis.url());
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("slotbook.redis.url must look like redis://host:port, got '"
                        + redis.url() + "'");
            }
            address = new HostAndPort(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort());
            String userInfo = uri.getUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                if (colon < 0) {
                    config.password(userInfo);
                } else {
                    if (colon > 0) {
                        config.user(userInfo.substring(0, colon));
                    }
                    config.password(userInfo.substring(colon + 1));
                }
            }
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                config.database(Integer.parseInt(path.substring(1)));
            }
            config.ssl("rediss".equalsIgnoreCase(uri.getScheme()));
        } else {
            BootRedis boot = BootRedis.of(beans);
            address = new HostAndPort(boot.host(), boot.port());
            config.database(boot.database());
            if (boot.username() != null) {
                config.user(boot.username());
            }
            if (boot.password() != null) {
                config.password(boot.password());
            }
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(redis.poolSize());
        pool.setMaxIdle(redis.poolSize());
        pool.setMaxWait(redis.timeout());
        return new UnifiedJedis(new PooledConnectionProvider(address, config.build(), pool), 1,
                redis.timeout().plus(Duration.ofMillis(1)));
    }

    @Bean
    @ConditionalOnMissingBean(SeatReservation.class)
    RedisSeatReservation slotbookGate(UnifiedJedis slotbookJedis, SlotbookProperties properties,
                                      ObjectProvider<SlotbookGateCustomizer> customizers) {
        int lanes = properties.redis().pipelineLanes();
        if (lanes < 0 || lanes > RedisSeatReservation.MAX_PIPELINE_LANES) {
            throw new IllegalArgumentException("slotbook.redis.pipeline-lanes must be between 0 and "
                    + RedisSeatReservation.MAX_PIPELINE_LANES + ", got " + lanes);
        }
        RedisSeatReservation.Builder builder = RedisSeatReservation.builder(slotbookJedis)
                .keyPrefix(properties.redis().keyPrefix()).pipelineLanes(lanes);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /** {@code slotbook.redis.url} is set, or Spring Boot has Redis connection details. */
    static class RedisConfigured extends AnyNestedCondition {
        RedisConfigured() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(prefix = "slotbook.redis", name = "url")
        static class Url {
        }

        @ConditionalOnBean(type = BootRedis.BOOT3)
        static class Boot3Redis {
        }

        @ConditionalOnBean(type = BootRedis.BOOT4)
        static class Boot4Redis {
        }
    }

    /**
     * Spring Boot's Redis connection details (spring.data.redis.*, or a service connection), read from
     * its bean whichever Boot named it: RedisConnectionDetails in Spring Boot 3,
     * DataRedisConnectionDetails in Spring Boot 4, whose getters are the same.
     */
    record BootRedis(String host, int port, int database, @Nullable String username, @Nullable String password) {
        static final String BOOT3 = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails";
        static final String BOOT4 = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

        static BootRedis of(BeanFactory beans) {
            ClassLoader loader = SlotbookRedisConfiguration.class.getClassLoader();
            for (String type : new String[] {BOOT4, BOOT3}) {
                if (!ClassUtils.isPresent(type, loader)) {
                    continue;
                }
                Object details = beans.getBeanProvider(ClassUtils.resolveClassName(type, loader)).getIfAvailable();
                if (details == null) {
                    continue;
                }
                Object standalone = call(details, "getStandalone");
                if (standalone == null) {
                    throw new SlotbookStartupException("Spring Boot's Redis connection is not a standalone server,"
                            + " and the gate's own pool connects to one.", "Set slotbook.redis.url, or define a"
                            + " SeatReservation bean (RedisSeatReservation over a cluster client).");
                }
                return new BootRedis((String) call(standalone, "getHost"), (Integer) call(standalone, "getPort"),
                        (Integer) call(standalone, "getDatabase"), (String) call(details, "getUsername"),
                        (String) call(details, "getPassword"));
            }
            throw new IllegalStateException("no Spring Boot Redis connection details");
        }

        private static @Nullable Object call(Object target, String getter) {
            try {
                java.lang.reflect.Method method = target.getClass().getMethod(getter);
                method.setAccessible(true);
                return method.invoke(target);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read " + getter + " of " + target.getClass().getName(), e);
            }
        }
    }
}
