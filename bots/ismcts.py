class ISMCTSBot:
    level = "ismcts"
    searches = True

