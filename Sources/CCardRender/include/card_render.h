/* placeholder until the renderer lands */
#ifndef CARD_RENDER_H
#define CARD_RENDER_H
#endif
