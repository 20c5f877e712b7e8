/* The GStreamer headers this package uses; nothing else belongs here (the
 * helpers are the CGStreamer target, Sources/CGStreamer). */
#ifndef HKID_CGSTREAMER_SYSTEM_H
#define HKID_CGSTREAMER_SYSTEM_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#endif /* HKID_CGSTREAMER_SYSTEM_H */
