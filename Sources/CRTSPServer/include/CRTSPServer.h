#ifndef CRTSPSERVER_H
#define CRTSPSERVER_H
#include <gst/gst.h>

/**
 * An RTSP server (gst-rtsp-server) with shared mounts (one per channel: "/live", "/live/rear"…), run on its own
 * thread and main context, so that nothing of it runs on the caller's threads. Each mount's media is built from a
 * launch description; an `appsrc` in it is fed with `appl_rtsp_server_push` (naming the mount) while a client plays
 * it. Mounts are numbered in the order they were given.
 */
typedef struct ApplRtspServer ApplRtspServer;

/**
 * What the server tells its owner, on the server's thread; each call must return at once. `media_started`: a
 * client asked for the mount and its media is being made (the stream pushed in must flow from now on);
 * `media_stopped`: that media is gone (no client left), called once for each `media_started`; `client_playing`: a
 * client starts to play (it decodes from the next keyframe, so ask for one); `admit`: a request carries credentials
 * (`name`: the Digest user name it gave, or NULL; `client`: the peer's address): may they be checked now (FALSE: the
 * request is refused with 401, unchecked: the guessing ledger holds this client or account); `checked`: what that
 * check found (`passed`), for every request `admit` let through; `talk`: a
 * client's media with the ONVIF backchannel was made (`started`) or is gone: `id` names it for
 * `appl_rtsp_server_set_talk`.
 * Ownership: `user` stays the caller's. The server never releases it; the handlers may be called with it from the
 * server's thread until `appl_rtsp_server_stop` returns (it joins that thread), so the caller releases it after
 * that, or at once when `appl_rtsp_server_start` returns NULL (no handler was or will be called then).
 */
typedef struct {
    void (*media_started)(guint mount, void *user);
    void (*media_stopped)(guint mount, void *user);
    void (*client_playing)(guint mount, void *user);
    gboolean (*admit)(const char *name, const char *client, void *user);
    void (*checked)(const char *name, const char *client, gboolean passed, void *user);
    void (*talk)(guint id, gboolean started, void *user);
    void *user;
} ApplRtspHandlers;

/**
 * Binds `address`:`port` (0: a free port) and serves `mounts` mounts: `launches[i]` at `paths[i]` (e.g. "/live"),
 * each shared by all its clients; the handlers name the mount (`i`). `user`/`password`: Digest authentication for
 * that one user, or NULL for none. `backchannel`: offer ONVIF's audio backchannel on the first mount (a client that
 * asks gets a media of its own). Returns NULL with `*error` set (free it with g_free) when the address cannot be
 * bound or the thread cannot start.
 */
ApplRtspServer *appl_rtsp_server_start(const char *address, int port, const char *const *paths,
                                       const char *const *launches, guint mounts, const char *user, const char *password,
                                       const char *tls_pem, gboolean backchannel, ApplRtspHandlers handlers, char **error);

/** Where the voice of the backchannel media `id` goes (decoded, 48 kHz mono S16): pushed unstamped into the appsrc
 *  `target`, or dropped (NULL). */
void appl_rtsp_server_set_talk(ApplRtspServer *server, guint id, GstElement *target);

/* Replaces the accounts who may watch: `talkers` (admins: they may also use the ONVIF backchannel) and `viewers`,
 * each "name:appliance:HA1" lines (HA1 = MD5 of name:appliance:password, what a Digest server keeps instead of the
 * password); the token_file's user (an admin) stays. `open`: anyone may watch, and talk, without a login (no account
 * and no token_file, on loopback). FALSE with *error set (for the caller to g_free) when the lines cannot be read. */
gboolean appl_rtsp_server_set_users(ApplRtspServer *server, const char *talkers, const char *viewers, gboolean open, char **error);

/** The caps of what will be pushed into the appsrc `name` of `mount`'s media (the caller keeps its reference): set on
 *  the media now and on every media of that mount made later. */
void appl_rtsp_server_set_caps(ApplRtspServer *server, guint mount, const char *name, GstCaps *caps);

/** The state of `mount`'s media pipeline, without waiting (`pending`: GST_STATE_VOID_PENDING when none); FALSE
 *  when there is no media. A live media plays from its first DESCRIBE on, and each client's PLAY (which adds its sinks) must leave it so. */
gboolean appl_rtsp_server_media_state(ApplRtspServer *server, guint mount, GstState *current, GstState *pending);

/** The port the server is bound to. */
int appl_rtsp_server_port(ApplRtspServer *server);

/** Clients connected now (a client is counted from its connection to its close). */
int appl_rtsp_server_clients(ApplRtspServer *server);

/**
 * Pushes `buffer` (the caller keeps its reference) into the appsrc named `name` of `mount`'s media while the
 * media exists (a client asked for it). `running_time`: the buffer's PTS as running time in the caller's pipeline;
 * it is moved onto the media's running time (the first buffer fixes the shift for every stream) and the copy has no
 * DTS. Returns FALSE when no media is there or the time is invalid. Never blocks: the appsrc drops what it cannot
 * queue (a slow client never holds up the caller's stream).
 */
gboolean appl_rtsp_server_push(ApplRtspServer *server, guint mount, const char *name, GstBuffer *buffer,
                               GstClockTime running_time);

/** Closes every client, stops the thread and frees the server. */
void appl_rtsp_server_stop(ApplRtspServer *server);

#endif
