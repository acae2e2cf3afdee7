/// Config/appliance.toml compiled into the binary, so `appliance run` works with no file at hand.
/// Kept identical to the file by a test (ConfigTests); regenerate with `make embed-config`.
public enum DefaultConfig {
    public static let text = #"""
        # appliance — default configuration. Works on any Linux machine: with no camera or microphone present,
        # the `auto` sources fall back to live test sources (with a warning in the log).
        # Every key is listed with its default. Paths are relative to the directory the daemon starts in.

        data_dir = "./data"
        # Control socket for `appliance ctl` (mode 0660). Empty: <data_dir>/ctl.sock
        socket = ""
        log_level = "info"

        [video]
        width = 1280
        height = 720
        framerate = 30
        # auto: each of encoder_candidates in turn gets a second of video (in a child process) and the first that\#
         returns
        # decodable H.264 of this size is used: a board's hardware encoder where it works, else openh264, else x264.\#
         The
        # choice is kept for the boot (a restart does not try again; `ctl status` says which and why). Or name a\#
         fragment in
        # pipelines/encoders/ (x264, openh264, v4l2h264, vah264, nvh264, ...) to use it untried.
        encoder = "auto"
        encoder_candidates = ["v4l2h264", "vah264", "vah264lp", "vaapih264", "nvh264", "qsvh264", "openh264", "x264"]
        # How long one candidate's trial may take (a child that does not answer within this and 10 s more is killed).
        encoder_trial_s = 10.0
        speed_preset = "veryfast"
        bitrate_kbps = 4000
        keyframe_interval_s = 1.0
        # Burn the date and time into the recording (dashcam evidence). The preview's own overlay never goes in the\#
         file.
        timestamp_overlay = false
        # A channel whose only camera is an IP camera (source = "rtsp") stores the camera's H.264 as sent: no\#
         re-encoding.
        passthrough = true

        [audio]
        # auto: ALSA when a capture card is present, else a live test tone. alsa | test | camera | none
        # camera: the shown IP camera's sound (source = "rtsp" cameras); silence while a camera without sound is\#
         shown.
        source = "auto"
        device = "default"
        bitrate_kbps = 128
        rate = 48000
        channels = 2

        [[camera]]
        name = "main"
        # auto: the V4L2 device when present, else a live test pattern. v4l2 | test | pipeline | rtsp
        source = "auto"
        device = "/dev/video0"
        pattern = "smpte"
        mirror = false
        rotate = 0
        # V4L2: the appliance reads the camera's modes and asks for the one that delivers [video] width x height at\#
         its
        # framerate (ctl cameras shows which). To pin one: mode = "1280x720@30", or "1920x1080@30 mjpeg".
        # mode = "1280x720@30"
        # A camera whose start takes longer than this (a wedged driver, a source that waits for ever) counts as\#
         failed: the
        # output goes on with the next camera or a black picture, and it is tried again after 1 s, 2 s, 4 s… (at most\#
         30 s).
        start_timeout_s = 10.0
        # An IP camera (a second [[camera]], or this one): its video is decoded (the board's decoder where one works)\#
         and
        # recorded like any camera's; its sound is dropped (or recorded: [audio] source = "camera"). It may take
        # start_timeout_s to connect and give its first frame, and when it drops it is tried again by itself (1 s\#
         doubling
        # to 30 s) while the output goes on.
        # source = "rtsp"
        # url = "rtsp://192.168.1.20:554/stream1"      # no user or password here: they are logged nowhere
        # username = "admin"
        # password_file = "/etc/appliance/front-door.password"   # mode 0600, one line
        # transport = "auto"                   # auto | tcp | udp
        # latency_ms = 200

        # Channels: what is recorded side by side, each to its own clips. Without [[channel]] tables there is one\#
         channel,
        # "main", with every camera above (switched by ctl switch), [video] and [recording]. A table names its\#
         cameras (each
        # camera is in one channel) and may set its own width, height, framerate, encoder, bitrate_kbps,
        # keyframe_interval_s, trigger, pre_record_s, post_record_s and audio (the first channel records the sound by
        # default). Each channel runs [motion] and [objects] on its own picture, and its trigger starts its own\#
         recordings.
        # [[channel]]
        # name = "road"
        # cameras = ["main"]

        [preview]
        # auto: wayland when WAYLAND_DISPLAY is set, gl when DISPLAY is set, else none. none | kms | wayland | gl
        sink = "auto"
        # Draw the REC mark, the elapsed time and the camera's name over the preview (never into the recording).
        overlay = true

        [thumbnail]
        offset_s = 1.0
        max_width = 320
        max_height = 320
        quality = 85
        # Scrubbing previews (the timeline shows them under the pointer): a frame this often while recording, this\#
         wide;
        # 1 to 6 KB each, 2 to 12 MB an hour at 2 s (0.3 % of the default 4 Mbit/s video). 0: none.
        scrub_every_s = 2.0
        scrub_width = 160

        [recording]
        pre_record_s = 0.0
        # A recording stops by itself at this length (not with segment_s: a loop recording runs until stopped).
        max_duration_s = 3600.0
        # Loop recording (dashcam): cut the recording into files of this many seconds (at least 1); 0: one file.
        segment_s = 0.0
        # The longest fragment of the file (each indexed when it ends), and how often, in media time, the file is
        # fdatasync'ed: a crash loses the fragment being gathered, a power cut also what followed the last sync.
        sync_interval_s = 1.0
        # "fragmented": each clip's media is written once (fragments while recording, one index at the end).
        # "reserved": index room reserved in front and trimmed at the end, which writes every clip twice.
        file_layout = "fragmented"
        # Start recording as soon as the daemon runs (after a restart or a crash too).
        autostart = false
        # What else starts a recording: "manual" (only commands, buttons, the web page), "motion", "sound", "object"\#
         (any
        # tracked object), a tracked label ("person"), or several joined by '+' ("motion+sound"; each needs its\#
         detector on).
        # The recording keeps pre_record_s before the event and ends post_record_s after the last one ended\#
         (event_gap_s if
        # longer: events closer than that share one clip); max_duration_s caps it.
        trigger = "manual"
        post_record_s = 5.0
        event_gap_s = 10.0

        [storage]
        # Retention deletes the oldest unlocked clips to keep this much free on the data folder's filesystem...
        min_free_mb = 512
        # ...and clips under this many GB in all (0: no cap).
        max_used_gb = 0.0
        # Clips older than this many days are deleted (0: kept until their space is needed). Locked clips are kept.
        retention_days = 0
        # Clips and loop segments that cover an activity (motion, sound, a mark, a press of the event button) are\#
         kept this
        # many days by age (at least retention_days), and are deleted after those that cover none when room is short.
        # Activity records and their pictures are kept as long (0: until their number passes 50,000).
        event_keep_days = 30
        # Locked clips may take at most this share of the space clips may use.
        max_locked_percent = 25.0
        # When only locked clips are left to delete, or they exceed max_locked_percent: stop the recording (status\#
         says
        # why), or overwrite_oldest_locked.
        on_full = "stop"
        # With backup on, clips not uploaded yet are deleted last (with a retention_warning event first).
        keep_until_backed_up = false

        [backup]
        # WebDAV server folder, e.g. "https://cloud.example/remote.php/dav/files/me/appliance", or an S3 bucket and\#
         prefix,
        # "s3://BUCKET/PREFIX" ({device} in the prefix is this machine's host name, for fleets). Empty: backup off.
        url = ""
        username = ""
        # A file holding the password (chmod 600; refused if others can read it), or set APPLIANCE_BACKUP_PASSWORD.
        password_file = ""
        # HTTPS uses the system's CA store; a PEM file of extra CA certificates to trust too (a self-hosted server's\#
         own CA).
        ca_file = ""
        # Back up only locked clips.
        only_locked = false
        # Upload rate cap in kbit/s; 0: none.
        bandwidth_kbps = 0
        # First retry delay after a transient failure (doubles per attempt, with jitter, at most 5 minutes).
        retry_base_s = 2.0
        # S3 only (url = "s3://…"): the service's URL (empty: AWS for the region; MinIO, Garage, B2… give theirs), the
        # region, the access key and a file holding the secret key (chmod 600), or set APPLIANCE_BACKUP_SECRET.
        endpoint = ""
        region = "us-east-1"
        access_key = ""
        secret_key_file = ""
        # "auto": the bucket in the URL's path for a custom endpoint, in the host name for AWS; or "on", "off".
        path_style = "auto"
        # x-amz-storage-class ("" : the bucket's default; e.g. "STANDARD_IA") and server-side encryption ("",\#
         "AES256",
        # "aws:kms") of every object.
        storage_class = ""
        server_side_encryption = ""
        # Clips larger than this go up in parts of this size (MiB, at least 5), and an interrupted upload goes on\#
         from the
        # last part the server has.
        part_size_mb = 8

        # The web dashboard: live view, record, browse, play, share (open http://127.0.0.1:8080 on this machine).
        [web]
        # host:port ("[::]:8080" for every address; port 0 picks a free one, shown by `ctl status`), or "off".
        listen = "127.0.0.1:8080"
        # Accounts log in with their own names and passwords (`appliance ctl user add NAME --role admin|viewer`).\#
         Before
        # the first account, and with no token_file, only this machine is served, without a login.
        # token_file: a file whose first line is a password for the admin "appliance" (web login, API bearer token or
        # Basic, RTSP's and ONVIF's digest), kept from before accounts; RTSP and ONVIF discovery on other addresses\#
         need it.
        token_file = ""
        # Read-only pages, the API's GETs and media without a login (commands still need one).
        public_read = false
        # HTTPS: "auto" serves it on any address but loopback, "on" everywhere, "off" never (warned at start when\#
         other
        # machines can reach the page). Plain HTTP on the same port is answered with a redirect to HTTPS.
        tls = "auto"
        # Your own certificate (PEM, leaf first, e.g. certbot's fullchain.pem) and its key; read again when they\#
         change.
        # Empty: the device makes its own (ECDSA P-256, for its host name, name.local and its addresses) under\#
         data_dir/tls,
        # renewed before it ends; `ctl status`, `appliance doctor` and the login page show its SHA-256 fingerprint to\#
         check
        # on the first visit.
        cert_file = ""
        key_file = ""
        # The live view's MJPEG stream (encoded only while someone watches).
        live_fps = 15
        live_width = 640
        live_height = 360
        # How long a new share link (/s/<token>) works unless asked otherwise.
        share_hours = 24.0
        # The live page plays over WebRTC (WHEP at /api/whep: the recording's H.264, its sound as Opus, about 0.1 s\#
         behind)
        # and falls back to MJPEG by itself. At most this many WebRTC viewers at once; 0: MJPEG only.
        webrtc_viewers = 4
        # A STUN server for viewers outside this network ("stun://host:port"); empty: this network's addresses only.
        stun = ""

        [rtsp]
        # The live stream for an NVR, Home Assistant (its Generic Camera or go2rtc), Frigate or VLC: the recording's\#
         own
        # H.264 and AAC (no second encoder), rtsp://HOST:PORT/<path>, over TCP or UDP; a camera switch shows without a
        # reconnect. host:port ("0.0.0.0:8554" for every address; port 0 picks a free one, shown by `ctl status`), or\#
         "off".
        # With [web] token_file set, clients log in as user "appliance" with that password (Digest); any address\#
         other than
        # loopback needs it.
        listen = "off"
        path = "live"
        # RTSP over TLS (rtsps://HOST:PORT/<path>) with the dashboard's certificate ([web] cert_file, or the device's\#
         own).
        # Most NVRs and Home Assistant's go2rtc take rtsps://; plain rtsp:// clients cannot connect then.
        tls = false

        # ONVIF Profile S: NVRs (Blue Iris, Synology, UniFi Protect, Agent DVR) and Home Assistant's ONVIF\#
         integration find
        # the device by themselves (WS-Discovery) and take its RTSP stream, a snapshot and its motion, sound and\#
         recording
        # events, with no URL typed by hand. The services are on the web server\#
         (http://HOST:PORT/onvif/device_service);
        # clients log in as user "appliance" with [web] token_file's password (WS-UsernameToken). Needs [rtsp] listen.
        [onvif]
        enabled = false
        # WS-Discovery (UDP): "0.0.0.0:3702" answers on every interface, an address on that interface only; "" follows
        # [web] listen's address (port 3702); "off": none (add the device by its address). Other machines need a\#
         token_file.
        listen = ""
        # The name NVRs show; empty: this machine's host name.
        name = ""

        # MQTT and Home Assistant: the appliance appears in Home Assistant by itself (MQTT discovery), with a\#
         Recording
        # switch, its health, its last clip and its thumbnail, and says when it is offline. Empty url: off.
        [mqtt]
        # mqtt://host:1883, or mqtts://host:8883 (TLS with the system's CA store plus ca_file).
        url = ""
        username = ""
        # A file whose first line is the password (chmod 600); or set APPLIANCE_MQTT_PASSWORD.
        password_file = ""
        ca_file = ""
        # Empty: appliance-<device id> (the device id is derived from /etc/machine-id, shown by `ctl status`).
        client_id = ""
        # Empty: appliance/<device id>. States under <topic_prefix>/..., commands under <topic_prefix>/.../set.
        topic_prefix = ""
        # Home Assistant's discovery prefix; "" sends no discovery.
        discovery_prefix = "homeassistant"
        # The name Home Assistant shows; empty: this machine's host name.
        device_name = ""

        [motion]
        # Motion detection on the live picture (the active camera): a small gray copy of fps frames a second is\#
         compared with
        # a slowly updated background; motion that lasts min_duration_s is a `motion_started` event (socket, metrics).
        enabled = false
        fps = 5
        # Width of the gray frames (a multiple of 4); the height follows the picture's shape.
        width = 160
        # How far a pixel must move from the background to count (0-255, on a frame with brightness and contrast\#
         taken out).
        threshold = 30
        # The smallest region in motion, as a fraction of the watched picture (0.003 of 160x90: about 43 pixels).
        min_area = 0.003
        min_duration_s = 0.5
        # Where motion counts (the whole picture when there are none), in relative coordinates (0,0 top left, 1,1\#
         bottom right):
        # zones = [{ name = "door", points = [[0.5, 0], [1, 0], [1, 1], [0.5, 1]] }]
        # Where it never counts (a tree, a road, a clock):
        # masks = [[[0, 0], [0.3, 0], [0.3, 0.2], [0, 0.2]]]

        [objects]
        # What moved, told apart: a detector looks at the picture around motion regions while motion goes on (needs\#
         [motion]
        # on), at most fps runs a second (a run due while one goes on is skipped and counted, never queued). An\#
         object that
        # holds over several runs is an `object_started` event and an activity labelled with it; `trigger = "person"`\#
         records.
        enabled = false
        fps = 5
        # The share of one core the detector may use: after each run it rests so that its CPU time stays within it
        # (its rate falls below fps; status says the rate it holds). 0: no budget.
        cpu_budget = 0.25
        # Width of the gray picture crops are cut from; 0: the picture's own (the built-in detector is never given an
        # upscaled picture: in foliage it finds "people").
        width = 0
        # A model for OpenCV's DNN module (ONNX: YOLOv5/YOLOX output; TensorFlow SSD .pb with model_config = its\#
         .pbtxt;
        # Darknet .weights with model_config = its .cfg). Empty: OpenCV's built-in HOG people detector (label\#
         "person").
        model = ""
        model_config = ""
        # Class names, one a line, in the model's order; empty: COCO's 80.
        labels = ""
        output = "yolo"            # "yolo", "ssd" or "darknet": how the model's output rows read
        input_width = 320
        input_height = 320
        # A detection counts at min_score; an object starts when the median of its scores over its last runs reaches
        # threshold (the built-in detector's scores are its SVM margin, not 0-1). nms: overlap that makes two boxes\#
         one.
        min_score = 0.5
        threshold = 0.7
        nms = 0.45
        track = ["person"]
        # An object ends this long after it was last found.
        release_s = 5.0
        # Where tracked objects count: names of [motion] zones (the bottom centre of an object's box inside one; a
        # person's feet, a car's wheels); empty: the whole picture.
        zones = []

        [sound]
        # Sound detection on the microphone's level (RMS of the loudest channel, ten readings a second; the level\#
         itself is
        # always in status and metrics): above threshold_db for min_duration_s is a `sound_started` event.
        enabled = false
        # dBFS: -30 is a raised voice near the microphone, a dog, a door; a quiet room reads -60 or lower.
        threshold_db = -30.0
        min_duration_s = 0.5

        [speaker]
        # The device's voice: `appliance ctl play FILE` (any sound GStreamer decodes) and its own chimes. auto: ALSA's
        # default when the board has a playback device, else none. Or an ALSA device ("hw:1,0"), or "none".
        device = "auto"
        # A GStreamer sink instead of device, e.g. "pulsesink" (the sound arrives as raw audio).
        # pipeline = "alsasink device=plughw:1,0"
        # 0 mutes, 1 plays a sound as it is (up to 4 amplifies).
        volume = 1.0
        # Chimes for its own feedback: recording started and stopped, a clip protected, storage nearly full, an error.
        feedback = false
        # Keeps what the speaker plays out of the recording's sound (webrtcdsp's echo canceller in the microphone\#
         chain).
        # auto: on when the microphone is a sound card and there is a speaker. Or "on", "off".
        echo_cancel = "auto"

        # Shutter buttons: none by default. Each [[input]] sends commands like `appliance ctl` does. An input whose\#
         device
        # is missing is reported in status and picked up when it appears; it never stops the daemon.
        # [[input]]
        # kind = "evdev"                  # a key on a keyboard, remote or USB foot switch
        # device = "/dev/input/by-id/usb-…-event-kbd"   # or: name = "the device's name" (as evtest shows it)
        # key = "KEY_SPACE"               # names as in linux/input-event-codes.h: KEY_RECORD, BTN_0, …
        # grab = false                    # take the device for the appliance alone (only once no key is held)
        # action = "toggle"               # toggle | hold | snapshot | protect | next_camera | stop
        # long_press_action = "protect"   # held at least long_press_ms (default 1000)
        # long_press_ms = 1000
        # double_press_action = "next_camera"   # a second press within double_press_ms (default 400)
        # double_press_ms = 400
        # channel = "rear"                # the one [[channel]] it acts on (default: every channel)
        #
        # [[input]]
        # kind = "gpio"                   # a push button on a GPIO line (kernel GPIO character device, v2)
        # chip = "/dev/gpiochip0"         # or the chip's label, e.g. "pinctrl-bcm2711"
        # line = 17                       # offset, or the line's name: "GPIO17"
        # active_low = true               # pressed = low (a button to ground with a pull-up)
        # bias = "pull-up"                # as-is | pull-up | pull-down | disabled
        # debounce_ms = 20                # in the kernel where it offers it, else in software
        # action = "toggle"

        # A recording light: on while recording, off when idle, blinking on a fault (storage low or missing, a camera
        # failed, backup paused). None by default.
        # [[output]]
        # kind = "led"                    # an LED-class device: a name under /sys/class/leds, or its folder's path
        # led = "led0"
        # role = "recording"
        # channel = "rear"                # on while this [[channel]] records (default: while any channel records)
        #
        # [[output]]
        # kind = "gpio"
        # chip = "/dev/gpiochip0"
        # line = 27
        # active_low = false
        # role = "recording"
        """#
}
