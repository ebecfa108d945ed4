package io.github.ratelimit.test.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import redis.embedded.RedisServer;

/**
 * A real Redis Cluster of redis-server processes on free loopback ports: three masters, each with one replica,
 * slots assigned with CLUSTER ADDSLOTS, nodes joined with CLUSTER MEET, replicas with CLUSTER REPLICATE.
 */
public final class RedisClusterProcess implements AutoCloseable, RedisTopology {

    private static final int MASTERS = 3;

    private final List<RedisServer> servers = new ArrayList<>();
    private final List<Integer> masterPorts = new ArrayList<>();
    private final List<Path> dirs = new ArrayList<>();
    private final List<Integer> replicaPorts = new ArrayList<>();

    private RedisClusterProcess() {}

    public static RedisClusterProcess start() {
        RedisClusterProcess cluster = new RedisClusterProcess();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        try {
            for (int i = 0; i < MASTERS * 2; i++) {
                int port = freeClusterPort();
                Path dir = Files.createTempDirectory("redis-cluster");
                cluster.dirs.add(dir);
                RedisServer server = ServerBinary.newServer()
                        .port(port)
                        .setting("bind 127.0.0.1")
                        .setting("save \"\"")
                        .setting("dir " + dir)
                        .setting("cluster-enabled yes")
                        .setting("cluster-config-file nodes.conf")
                        .setting("cluster-node-timeout 1000")
                        .setting("cluster-replica-validity-factor 0")
                        .build();
                server.start();
                cluster.servers.add(server);
                (i < MASTERS ? cluster.masterPorts : cluster.replicaPorts).add(port);
            }
            cluster.form();
            return cluster;
        } catch (IOException e) {
            cluster.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Ports handed out in this JVM, with their cluster bus ports: never handed out twice. */
    private static final java.util.Set<Integer> RESERVED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A free port whose cluster bus port (10000 higher) is free too and neither was handed out before in this JVM (a
     * node binds both; a bus port taken by anything makes the node abort).
     */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = RedisProcess.freePort();
            if (port + 10_000 <= 65_535
                    && canBind(port + 10_000)
                    && RESERVED.add(port)
                    && RESERVED.add(port + 10_000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free pair of ports for a cluster node");
    }

    private static boolean canBind(int port) {
        try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void form() {
        int slotsPerMaster = 16384 / MASTERS;
        for (int m = 0; m < MASTERS; m++) {
            int from = m * slotsPerMaster;
            int to = m == MASTERS - 1 ? 16383 : from + slotsPerMaster - 1;
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = from; slot <= to; slot++) {
                command.add(Integer.toString(slot));
            }
            expectOk(RawRedis.command(masterPorts.get(m), command.toArray(String[]::new)));
        }
        int first = masterPorts.get(0);
        for (int port : allPorts()) {
            if (port != first) {
                expectOk(RawRedis.command(port, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(first)));
            }
        }
        awaitKnown();
        for (int r = 0; r < MASTERS; r++) {
            String masterId =
                    RawRedis.command(masterPorts.get(r), "CLUSTER", "MYID").split("\r\n")[1];
            expectOk(RawRedis.command(replicaPorts.get(r), "CLUSTER", "REPLICATE", masterId));
        }
        awaitState();
    }

    private void awaitKnown() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int port : allPorts()) {
            while (RawRedis.command(port, "CLUSTER", "NODES").split("127.0.0.1:", -1).length - 1 < MASTERS * 2) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cluster nodes did not meet");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Waits until every node says the cluster is ok and every replica is in sync. */
    public void awaitState() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int port : allPorts()) {
            while (!RawRedis.command(port, "CLUSTER", "INFO").contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cluster did not reach state ok");
                }
                Thread.onSpinWait();
            }
        }
        for (int port : replicaPorts) {
            while (!RawRedis.command(port, "INFO", "replication").contains("master_link_status:up")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("replica did not sync");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Waits until every replica has everything its master wrote so far (their replication offsets agree). */
    public void awaitReplicated() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int r = 0; r < replicaPorts.size(); r++) {
            int master = masterPorts.get(r);
            int replica = replicaPorts.get(r);
            if (!RawRedis.command(replica, "INFO", "replication").contains("role:slave")) {
                continue; // a replica promoted earlier: nothing replicates to it
            }
            long target = RawRedis.infoNumber(master, "replication", "master_repl_offset");
            while (RawRedis.infoNumber(replica, "replication", "slave_repl_offset") < target) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("replica " + replica + " did not catch up");
                }
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Kills the {@code index}-th master with SIGKILL (a crash: no coordinated failover) and returns its replica's port;
     * the cluster promotes that replica after the node timeout.
     */
    public int killMaster(int index) {
        RedisProcess.kill(RawRedis.pid(masterPorts.get(index)));
        return replicaPorts.get(index);
    }

    /**
     * Freezes the node on {@code port} (SIGSTOP): it keeps its connections but does nothing, replication included.
     * Returns its process id for {@link #thaw}.
     */
    public static long freeze(int port) {
        long pid = RawRedis.pid(port);
        RedisProcess.signal(pid, "STOP");
        return pid;
    }

    /** Lets a frozen node go on (SIGCONT). */
    public static void thaw(long pid) {
        RedisProcess.signal(pid, "CONT");
    }

    /** Waits until the replica on {@code port} is a master and the cluster is ok again as it sees it. */
    public static void awaitPromoted(int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!RawRedis.command(port, "INFO", "replication").contains("role:master")
                || !RawRedis.command(port, "CLUSTER", "INFO").contains("cluster_state:ok")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("replica " + port + " was not promoted");
            }
            Thread.onSpinWait();
        }
    }

    private static void expectOk(String reply) {
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException("cluster setup failed: " + reply);
        }
    }

    public List<Integer> allPorts() {
        List<Integer> all = new ArrayList<>(masterPorts);
        all.addAll(replicaPorts);
        return all;
    }

    public List<Integer> masterPorts() {
        return List.copyOf(masterPorts);
    }

    public List<Integer> replicaPorts() {
        return List.copyOf(replicaPorts);
    }

    /** A Redisson client in cluster mode, as an application instance would have. */
    @Override
    public RedissonClient newClient() {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        var servers = config.useClusterServers().setScanInterval(200).setMasterConnectionPoolSize(32);
        for (int port : masterPorts) {
            servers.addNodeAddress("redis://127.0.0.1:" + port);
        }
        return Redisson.create(config);
    }

    /** The node list for spring.data.redis.cluster.nodes. */
    public String nodes() {
        return String.join(",", masterPorts.stream().map(p -> "127.0.0.1:" + p).toList());
    }

    @Override
    public void close() {
        for (RedisServer server : servers) {
            try {
                server.stop();
            } catch (IOException | RuntimeException e) {
                // best effort: the other servers still need stopping
            }
        }
        dirs.forEach(RedisProcess::deleteTree);
    }
}
